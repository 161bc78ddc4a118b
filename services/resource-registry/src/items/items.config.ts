import { z } from 'zod';
import { checkSecretKeysSetting, secretKeyringOf, type SecretKeyring } from '@flowmesh/keyring';

/**
 * Settings of resources, variables, scripts and flows, keyed by environment variable.
 *
 * - `FLOWMESH_SECRET_KEYS`: `keyid:base64key,...` (32-byte keys, the first is current) that
 *   encrypt secret variables. Required when `NODE_ENV=production`; elsewhere a missing setting
 *   falls back to a publicly derivable development key (see `insecureDevelopmentKeyring`).
 * - `FLOWMESH_REGISTRY_MAX_VALUE_BYTES` (default 512 KiB): the largest resource value, variable
 *   value, script (content + lock) or flow value, as UTF-8 JSON. Below NATS's default 1 MiB
 *   message limit, so whatever the registry accepts can also be read back over NATS.
 * - `FLOWMESH_REGISTRY_MAX_INTERPOLATION_DEPTH` (default 10): how many `$res:` hops one
 *   interpolation follows.
 * - `FLOWMESH_REGISTRY_READ_CACHE_MS` (default 1000, 0: off): how long interpolation may use a
 *   resource or variable row read earlier. Writes drop rows at once in this process and, through
 *   their events, within milliseconds in other replicas; this is the bound if an event is lost.
 * - `FLOWMESH_REGISTRY_READ_CACHE_BYTES` (default 32 MiB): the most those rows may weigh (as JSON
 *   text), the oldest dropped first.
 */
export const itemsSettingsShape = {
  FLOWMESH_SECRET_KEYS: z.string().optional(),
  FLOWMESH_REGISTRY_MAX_VALUE_BYTES: z
    .string()
    .regex(/^[1-9]\d*$/, 'must be a positive whole number of bytes')
    .transform(Number)
    .refine((bytes) => bytes >= 1024 && bytes <= 64 * 1024 * 1024, 'must be between 1024 and 67108864')
    .default(512 * 1024),
  FLOWMESH_REGISTRY_MAX_INTERPOLATION_DEPTH: z
    .string()
    .regex(/^[1-9]\d*$/, 'must be a positive whole number')
    .transform(Number)
    .refine((depth) => depth <= 100, 'must be at most 100')
    .default(10),
  FLOWMESH_REGISTRY_READ_CACHE_MS: z
    .string()
    .regex(/^\d+$/, 'must be a whole number of milliseconds (0 turns the cache off)')
    .transform(Number)
    .default(1_000),
  FLOWMESH_REGISTRY_READ_CACHE_BYTES: z
    .string()
    .regex(/^\d+$/, 'must be a whole number of bytes')
    .transform(Number)
    .default(32 * 1024 * 1024),
  NODE_ENV: z.string().optional(),
};

export interface ItemsConfig {
  readonly secretKeys: SecretKeyring;
  readonly maxValueBytes: number;
  readonly maxInterpolationDepth: number;
  /** Interpolation's read cache of resource and variable rows (0 ms: off). */
  readonly readCache: { readonly ttlMs: number; readonly maxBytes: number };
}

type ItemsSettings = z.output<z.ZodObject<typeof itemsSettingsShape>>;

export function checkItemsSettings(env: ItemsSettings, ctx: z.RefinementCtx): void {
  checkSecretKeysSetting('FLOWMESH_SECRET_KEYS', env.FLOWMESH_SECRET_KEYS, env.NODE_ENV, ctx);
}

export function toItemsConfig(env: ItemsSettings): ItemsConfig {
  return {
    secretKeys: secretKeyringOf('FLOWMESH_SECRET_KEYS', env.FLOWMESH_SECRET_KEYS),
    maxValueBytes: env.FLOWMESH_REGISTRY_MAX_VALUE_BYTES,
    maxInterpolationDepth: env.FLOWMESH_REGISTRY_MAX_INTERPOLATION_DEPTH,
    readCache: {
      ttlMs: env.FLOWMESH_REGISTRY_READ_CACHE_MS,
      maxBytes: env.FLOWMESH_REGISTRY_READ_CACHE_BYTES,
    },
  };
}
