import { settings, type ServiceConfig } from '@flowmesh/bootstrap';
import { z } from 'zod';

/**
 * Settings only memory-service reads, keyed by environment variable. The common ones (NATS_URL,
 * DATABASE_URL, FLOWMESH_SUBJECT_PREFIX, ports, log level, shutdown timeout) come from
 * @flowmesh/bootstrap. With `S3_BUCKET` set, memories are objects in that bucket
 * (`memory/{workspace}/{memory id}/{step}.json`); without it they stay in Postgres.
 */
export const memoryServiceConfigSchema = z
  .object({
    S3_BUCKET: settings.text().optional(),
    /** An S3-compatible endpoint (MinIO, s3rver); absent: AWS for the region. */
    S3_ENDPOINT: settings.httpUrl().optional(),
    S3_REGION: settings.text().default('us-east-1'),
    /** Absent: the AWS SDK's default credential chain. */
    S3_ACCESS_KEY_ID: settings.text().optional(),
    S3_SECRET_ACCESS_KEY: settings.text().optional(),
    S3_FORCE_PATH_STYLE: settings.oneOf(['true', 'false']).default('false'),
    /** How long one S3 call may take before the save falls back to the database. */
    FLOWMESH_MEMORY_S3_TIMEOUT_MS: settings.positiveInt().default(5_000),
  })
  .superRefine((env, ctx) => {
    if ((env.S3_ACCESS_KEY_ID === undefined) !== (env.S3_SECRET_ACCESS_KEY === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['S3_SECRET_ACCESS_KEY'],
        message: 'is required together with S3_ACCESS_KEY_ID',
      });
    }
  })
  .transform((env) => ({
    memory: {
      s3: env.S3_BUCKET
        ? {
            bucket: env.S3_BUCKET,
            endpoint: env.S3_ENDPOINT,
            region: env.S3_REGION,
            credentials:
              env.S3_ACCESS_KEY_ID && env.S3_SECRET_ACCESS_KEY
                ? { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY }
                : undefined,
            forcePathStyle: env.S3_FORCE_PATH_STYLE === 'true',
            timeoutMs: env.FLOWMESH_MEMORY_S3_TIMEOUT_MS,
          }
        : null,
    },
  }));

export type MemoryServiceConfig = ServiceConfig<z.output<typeof memoryServiceConfigSchema>>;
export type S3Settings = NonNullable<MemoryServiceConfig['memory']['s3']>;
