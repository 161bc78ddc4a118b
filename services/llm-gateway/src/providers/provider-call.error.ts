import { MeshError, type ErrorCode, type ProviderError, type ProviderErrorClass } from '@flowmesh/contracts';

/** The mesh error code a provider failure travels under on request/reply subjects. */
const CODE_OF_CLASS: Record<ProviderErrorClass, ErrorCode> = {
  context_window_exceeded: 'LIMIT_EXCEEDED',
  rate_limited: 'UNAVAILABLE',
  quota_exceeded: 'LIMIT_EXCEEDED',
  auth_failed: 'PERMISSION_DENIED',
  model_unavailable: 'NOT_FOUND',
  bad_request_internal: 'INTERNAL',
  bad_request_user: 'VALIDATION_FAILED',
  provider_outage: 'UNAVAILABLE',
  cancelled: 'TIMEOUT',
  budget_exceeded: 'LIMIT_EXCEEDED',
};

/**
 * A provider call that failed, classified. It is a `MeshError` (so a request handler answers it as
 * an envelope) whose `details` is the `ProviderError`: callers branch on `details.class`.
 */
export class ProviderCallError extends MeshError {
  constructor(readonly providerError: ProviderError) {
    super(CODE_OF_CLASS[providerError.class], providerError.message, providerError);
    this.name = 'ProviderCallError';
  }

  get errorClass(): ProviderErrorClass {
    return this.providerError.class;
  }
}

export function providerCallError(
  errorClass: ProviderErrorClass,
  message: string,
  extra: Omit<ProviderError, 'class' | 'message'> = {},
): ProviderCallError {
  return new ProviderCallError({ class: errorClass, message, ...extra });
}

/** A `url` part reached an adapter: the gateway resolves those before any call (`media/`). */
export function unfetchedUrl(): ProviderCallError {
  return providerCallError('bad_request_internal', 'a URL part reached the provider call unfetched');
}
