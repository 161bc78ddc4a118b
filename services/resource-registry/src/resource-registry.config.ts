import type { ServiceConfig } from '@flowmesh/bootstrap';
import { z } from 'zod';
import {
  checkIdentitySettings,
  identitySettingsShape,
  toIdentityConfig,
} from './identity/identity.config.js';
import { checkItemsSettings, itemsSettingsShape, toItemsConfig } from './items/items.config.js';

/**
 * Settings only resource-registry reads, keyed by environment variable, parsed into a typed tree
 * (one branch per area). The common ones (NATS_URL, DATABASE_URL, FLOWMESH_SUBJECT_PREFIX, ports,
 * log level, shutdown timeout) come from @flowmesh/bootstrap.
 */
export const resourceRegistryConfigSchema = z
  .object({
    ...identitySettingsShape,
    ...itemsSettingsShape,
  })
  .superRefine((env, ctx) => {
    checkIdentitySettings(env, ctx);
    checkItemsSettings(env, ctx);
  })
  .transform((env) => ({
    identity: toIdentityConfig(env),
    items: toItemsConfig(env),
  }));

export type ResourceRegistryConfig = ServiceConfig<z.output<typeof resourceRegistryConfigSchema>>;
