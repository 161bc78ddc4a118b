import {
  checkS3Credentials,
  s3ConnectionOf,
  S3_SETTINGS,
  settings,
  type ServiceConfig,
} from '@flowmesh/bootstrap';
import { z } from 'zod';

/**
 * Settings only memory-service reads, keyed by environment variable. The common ones (NATS_URL,
 * DATABASE_URL, FLOWMESH_SUBJECT_PREFIX, ports, log level, shutdown timeout) come from
 * @flowmesh/bootstrap. With `S3_BUCKET` set, memories are objects in that bucket
 * (`memory/{workspace}/{memory id}/{step}.json`); without it they stay in Postgres.
 */
export const memoryServiceConfigSchema = z
  .object({
    ...S3_SETTINGS,
    /** How long one S3 call may take before the save falls back to the database. */
    FLOWMESH_MEMORY_S3_TIMEOUT_MS: settings.positiveInt().default(5_000),
  })
  .superRefine(checkS3Credentials)
  .transform((env) => {
    const s3 = s3ConnectionOf(env);
    return { memory: { s3: s3 ? { ...s3, timeoutMs: env.FLOWMESH_MEMORY_S3_TIMEOUT_MS } : null } };
  });

export type MemoryServiceConfig = ServiceConfig<z.output<typeof memoryServiceConfigSchema>>;
export type S3Settings = NonNullable<MemoryServiceConfig['memory']['s3']>;
