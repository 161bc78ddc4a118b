import { MeshError } from '@flowmesh/contracts';

/** The size a value takes as UTF-8 JSON, as stored and as sent over NATS. */
export function jsonByteLength(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
}

/** LIMIT_EXCEEDED naming the item and both sizes, never the value. */
export function assertWithinLimit(what: string, bytes: number, limit: number): void {
  if (bytes > limit) {
    throw new MeshError(
      'LIMIT_EXCEEDED',
      `${what} is ${bytes} bytes, over the limit of ${limit} (FLOWMESH_REGISTRY_MAX_VALUE_BYTES)`,
      { bytes, limit },
    );
  }
}
