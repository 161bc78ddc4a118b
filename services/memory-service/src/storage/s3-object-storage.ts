import {
  DeleteObjectCommand,
  GetObjectCommand,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import type { OnApplicationShutdown } from '@nestjs/common';
import type { S3Settings } from '../memory-service.config.js';
import { ObjectStorage, ObjectStorageError, type StoredObject } from './object-storage.port.js';

/** `ObjectStorage` on one S3 bucket through `@aws-sdk/client-s3`. */
export class S3ObjectStorage extends ObjectStorage implements OnApplicationShutdown {
  private readonly client: S3Client;

  constructor(private readonly settings: S3Settings) {
    super();
    this.client = new S3Client({
      region: settings.region,
      endpoint: settings.endpoint,
      forcePathStyle: settings.forcePathStyle,
      credentials: settings.credentials,
      // One retry: a save that cannot reach S3 should fall back to the database promptly.
      maxAttempts: 2,
      requestHandler: { connectionTimeout: settings.timeoutMs, requestTimeout: settings.timeoutMs },
    });
  }

  async put(key: string, body: string, metadata: Readonly<Record<string, string>>): Promise<void> {
    try {
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.settings.bucket,
          Key: key,
          Body: body,
          ContentType: 'application/json',
          Metadata: { ...metadata },
        }),
        { abortSignal: this.deadline() },
      );
    } catch (error) {
      throw new ObjectStorageError('put', key, error);
    }
  }

  async get(key: string): Promise<StoredObject | undefined> {
    try {
      const reply = await this.client.send(new GetObjectCommand({ Bucket: this.settings.bucket, Key: key }), {
        abortSignal: this.deadline(),
      });
      const body = (await reply.Body?.transformToString('utf-8')) ?? '';
      return { body, metadata: reply.Metadata ?? {} };
    } catch (error) {
      if (error instanceof NoSuchKey) return undefined;
      throw new ObjectStorageError('get', key, error);
    }
  }

  async delete(keys: readonly string[]): Promise<void> {
    await Promise.all(
      keys.map(async (key) => {
        try {
          await this.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: key }), {
            abortSignal: this.deadline(),
          });
        } catch (error) {
          throw new ObjectStorageError('delete', key, error);
        }
      }),
    );
  }

  onApplicationShutdown(): void {
    this.client.destroy();
  }

  private deadline(): AbortSignal {
    return AbortSignal.timeout(this.settings.timeoutMs);
  }
}
