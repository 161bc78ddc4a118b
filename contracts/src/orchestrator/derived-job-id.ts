import { createHash } from 'node:crypto';

/**
 * A job id derived from what the job is (its parent job, its place, its attempt): the same parts
 * give the same id on every run, so a job started before a crash is found again instead of started
 * twice, and its id (`WM_JOB_ID`) is a key its side effects can be made idempotent with. An RFC
 * 9562 UUID, version 8 (custom), variant 10, from the SHA-256 of the parts.
 */
export function derivedJobId(...parts: readonly (string | number)[]): string {
  const bytes = createHash('sha256').update(parts.join('\u0000')).digest();
  bytes[6] = (bytes[6] & 0x0f) | 0x80;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
