import {
  classifyFault,
  MeshError,
  providerResourceLabel,
  type InlineProviderResource,
  type FaultClass,
  type KeyOwner,
  type ProviderError,
} from '@flowmesh/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { ProviderCallError } from '../providers/provider-call.error.js';
import { CREDENTIALS_CONFIG, type CredentialsConfig } from './credentials.config.js';

/**
 * Whose key a provider resource holds, and so whose fault its failures are (`classifyFault`): a
 * resource the operator lists in `FLOWMESH_GATEWAY_MANAGED_PROVIDER_RESOURCES` (a path, or a
 * folder ending in `/`) holds the platform's key, shared by every workspace; any other resource,
 * and one given inline, holds the user's own.
 */
@Injectable()
export class KeyOwnership {
  private readonly managed: readonly string[];

  constructor(@Inject(CREDENTIALS_CONFIG) config: Pick<CredentialsConfig, 'managedResources'>) {
    this.managed = config.managedResources;
  }

  ownerOf(resource: string | InlineProviderResource): KeyOwner {
    if (typeof resource !== 'string') return 'user';
    return this.managed.some((entry) =>
      entry.endsWith('/') ? resource.startsWith(entry) : resource === entry,
    )
      ? 'platform'
      : 'user';
  }

  /**
   * The error with its fault class; an auth failure on the user's own key says which resource's
   * key to fix (on the platform's key the user can fix nothing, and it pages).
   */
  attribute(error: ProviderError, resource: string | InlineProviderResource): ProviderError {
    const key = this.ownerOf(resource);
    const fault = classifyFault({
      source: 'provider',
      class: error.class,
      key,
      ...(error.providerCode !== undefined ? { providerCode: error.providerCode } : {}),
      message: error.message,
    });
    const message =
      error.class === 'auth_failed' && key === 'user'
        ? `${error.message}: fix the key of ${describeResource(resource)}`
        : error.message;
    return { ...error, message, fault };
  }

  /**
   * A caught failure of a provider call on `resource`, attributed: a provider's refusal with its
   * fault (`attribute`), anything else as it was (an edge maps it by its code).
   */
  attributeCaught(error: unknown, resource: string | InlineProviderResource): unknown {
    return error instanceof ProviderCallError
      ? new ProviderCallError(this.attribute(error.providerError, resource))
      : error;
  }
}

function describeResource(resource: string | InlineProviderResource): string {
  const label = providerResourceLabel(resource);
  return label === 'inline' ? 'the provider resource given inline' : `the provider resource ${label}`;
}

/**
 * The fault of a provider resource that could not be read for a call: one that is missing or
 * not the caller's to read names an AI-provider entity (the user's); one that cannot be used as
 * written is the user's too; anything else (the registry failed) is ours.
 */
export function credentialsFault(error: unknown): FaultClass {
  if (!(error instanceof MeshError)) return 'internal';
  if (error.code === 'VALIDATION_FAILED') return 'user';
  return classifyFault({ source: 'mesh', code: error.code, entity: 'ai_provider' });
}

/** A provider resource that could not be read, as the `MeshError` a caller reads: `details.fault` says whose. */
export function withCredentialsFault(error: unknown): unknown {
  if (!(error instanceof MeshError)) return error;
  const details = typeof error.details === 'object' && error.details !== null ? error.details : {};
  return new MeshError(error.code, error.message, {
    ...details,
    entity: 'ai_provider',
    fault: credentialsFault(error),
  });
}
