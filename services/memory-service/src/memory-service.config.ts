import type { ServiceConfig } from '@flowmesh/bootstrap';
import { z } from 'zod';

/**
 * Settings only memory-service reads, keyed by environment variable. The common ones (NATS_URL,
 * DATABASE_URL, FLOWMESH_SUBJECT_PREFIX, ports, log level, shutdown timeout) come from
 * @flowmesh/bootstrap. None yet.
 */
export const memoryServiceConfigSchema = z.object({});

export type MemoryServiceConfig = ServiceConfig<z.output<typeof memoryServiceConfigSchema>>;
