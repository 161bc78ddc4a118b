import { type z } from 'zod';
import * as settings from './setting.schemas.js';

/**
 * The object storage settings every service that reads or writes S3 takes, by environment
 * variable: one bucket on AWS or an S3-compatible endpoint (MinIO, s3rver). Spread into a
 * service's config schema; `checkS3Credentials` in its `superRefine`, `s3ConnectionOf` in its
 * `transform`.
 */
export const S3_SETTINGS = {
  S3_BUCKET: settings.text().optional(),
  /** An S3-compatible endpoint (MinIO, s3rver); absent: AWS for the region. */
  S3_ENDPOINT: settings.httpUrl().optional(),
  S3_REGION: settings.text().default('us-east-1'),
  /** Absent: the AWS SDK's default credential chain. */
  S3_ACCESS_KEY_ID: settings.text().optional(),
  S3_SECRET_ACCESS_KEY: settings.text().optional(),
  S3_FORCE_PATH_STYLE: settings.oneOf(['true', 'false']).default('false'),
};

type S3Env = z.output<z.ZodObject<typeof S3_SETTINGS>>;

/** The access key and its secret come together or not at all. */
export function checkS3Credentials(env: S3Env, ctx: z.RefinementCtx): void {
  if ((env.S3_ACCESS_KEY_ID === undefined) !== (env.S3_SECRET_ACCESS_KEY === undefined)) {
    ctx.addIssue({
      code: 'custom',
      path: ['S3_SECRET_ACCESS_KEY'],
      message: 'is required together with S3_ACCESS_KEY_ID',
    });
  }
}

/** How to reach the bucket, as `@aws-sdk/client-s3` takes it. */
export interface S3Connection {
  readonly bucket: string;
  readonly endpoint: string | undefined;
  readonly region: string;
  readonly credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
  readonly forcePathStyle: boolean;
}

/** The connection, or null when no `S3_BUCKET` is set (object storage is off). */
export function s3ConnectionOf(env: S3Env): S3Connection | null {
  if (!env.S3_BUCKET) return null;
  return {
    bucket: env.S3_BUCKET,
    endpoint: env.S3_ENDPOINT,
    region: env.S3_REGION,
    credentials:
      env.S3_ACCESS_KEY_ID && env.S3_SECRET_ACCESS_KEY
        ? { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY }
        : undefined,
    forcePathStyle: env.S3_FORCE_PATH_STYLE === 'true',
  };
}
