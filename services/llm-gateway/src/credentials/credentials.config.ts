import { settings } from '@flowmesh/bootstrap';
import { type z } from 'zod';

export interface CredentialsConfig {
  /** How long resolved credentials are reused before the registry is asked again. */
  readonly cacheTtlMs: number;
  readonly cacheMaxEntries: number;
  /** Provider resources holding the platform's own keys (a path, or a folder ending in `/`). */
  readonly managedResources: readonly string[];
}

export const CREDENTIALS_CONFIG = Symbol.for('flowmesh.llm-gateway.CredentialsConfig');

/**
 * `FLOWMESH_GATEWAY_CREDENTIALS_TTL_MS` (default 60 s): also how long a revoked token or a
 * removed permission can still use credentials it resolved, when no change event reached us.
 */
export const credentialsSettingsShape = {
  FLOWMESH_GATEWAY_CREDENTIALS_TTL_MS: settings.positiveInt().default(60_000),
  FLOWMESH_GATEWAY_CREDENTIALS_CACHE_SIZE: settings.positiveInt().default(10_000),
  /**
   * Provider resources whose key the operator manages for every workspace (`f/platform/openai`,
   * or `f/platform/` for a folder): their auth, billing and model failures are ours and page.
   */
  FLOWMESH_GATEWAY_MANAGED_PROVIDER_RESOURCES: settings.list().optional(),
};

type CredentialsSettings = z.output<z.ZodObject<typeof credentialsSettingsShape>>;

export function toCredentialsConfig(env: CredentialsSettings): CredentialsConfig {
  return {
    cacheTtlMs: env.FLOWMESH_GATEWAY_CREDENTIALS_TTL_MS,
    cacheMaxEntries: env.FLOWMESH_GATEWAY_CREDENTIALS_CACHE_SIZE,
    managedResources: env.FLOWMESH_GATEWAY_MANAGED_PROVIDER_RESOURCES ?? [],
  };
}
