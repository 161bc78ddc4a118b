import type { Actor, AIProviderKind, InlineProviderResource } from '@flowmesh/contracts';
import type { ProviderCredentials } from '../providers/provider-credentials.js';

export interface CredentialsQuery {
  /** The caller: credentials are read as this identity, so a caller reads only what it may. */
  readonly actor: Actor;
  readonly workspace: string;
  /**
   * Provider resource path (`f/ai/openai`), without `$res:`; or the resource's fields inline (its
   * `$var:` references read as the caller), which then needs `kind`.
   */
  readonly resource: string | InlineProviderResource;
  /**
   * The kind the caller names: the resource must be of this type. Absent (the HTTP proxy, which
   * only names a resource): the resource's own type decides, returned as `provider`.
   */
  readonly kind?: AIProviderKind;
}

/**
 * Resolves a provider resource into credentials: the registry's interpolated value (as the
 * caller), parsed with `credentialsFromResourceValue`, cached with an expiry and dropped when the
 * registry announces the resource changed. Fails with the registry's `MeshError`
 * (`NOT_FOUND`, `PERMISSION_DENIED`, `UNAUTHENTICATED`) or `VALIDATION_FAILED` for a malformed value.
 *
 * An abstract class so it is its own Nest injection token:
 * `constructor(private readonly credentials: CredentialsResolver)`.
 */
export abstract class CredentialsResolver {
  abstract resolve(query: CredentialsQuery): Promise<ProviderCredentials>;
}
