import { createHash } from 'node:crypto';

/**
 * A uuid v5 (RFC 9562) of `name` in `namespace` (16 bytes): the same name always gives the same
 * id, so a run started for a tick or a message, however often, is one job.
 */
export function uuidV5(namespace: Buffer, name: string): string {
  const hash = createHash('sha1').update(namespace).update(name, 'utf8').digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
