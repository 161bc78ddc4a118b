/** A stored object: its text and the metadata written with it. */
export interface StoredObject {
  readonly body: string;
  readonly metadata: Readonly<Record<string, string>>;
}

/**
 * Object storage as memory-service needs it (S3 in production, `s3rver` in tests). Every failure
 * is an `ObjectStorageError`, so a caller can fall back without knowing the SDK's errors.
 */
export abstract class ObjectStorage {
  abstract put(key: string, body: string, metadata: Readonly<Record<string, string>>): Promise<void>;
  /** Undefined when there is no such object. */
  abstract get(key: string): Promise<StoredObject | undefined>;
  /** Deleting an object that does not exist is not an error. */
  abstract delete(keys: readonly string[]): Promise<void>;
}

export class ObjectStorageError extends Error {
  constructor(
    readonly operation: 'put' | 'get' | 'delete',
    readonly key: string,
    cause: unknown,
  ) {
    super(
      `object storage ${operation} of ${key} failed: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
    this.name = 'ObjectStorageError';
  }
}
