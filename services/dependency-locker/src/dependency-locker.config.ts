import type { ServiceConfig } from '@flowmesh/bootstrap';
import { z } from 'zod';

/**
 * Settings only dependency-locker reads, keyed by environment variable. The common ones (NATS_URL,
 * DATABASE_URL, FLOWMESH_SUBJECT_PREFIX, ports, log level, shutdown timeout) come from
 * @flowmesh/bootstrap. None yet.
 */
export const dependencyLockerConfigSchema = z.object({});

export type DependencyLockerConfig = ServiceConfig<z.output<typeof dependencyLockerConfigSchema>>;
