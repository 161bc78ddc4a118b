import type { ServiceConfig } from '@flowmesh/bootstrap';
import { z } from 'zod';

/**
 * Settings only resource-registry reads, keyed by environment variable. The common ones (NATS_URL,
 * DATABASE_URL, FLOWMESH_SUBJECT_PREFIX, ports, log level, shutdown timeout) come from
 * @flowmesh/bootstrap. None yet.
 */
export const resourceRegistryConfigSchema = z.object({});

export type ResourceRegistryConfig = ServiceConfig<z.output<typeof resourceRegistryConfigSchema>>;
