import { createHash } from 'node:crypto';

const MISTRAL_ID = /^[a-zA-Z0-9]{9}$/;
const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/**
 * Mistral accepts only tool-call ids of exactly 9 letters and digits, so ids another provider
 * made (`call_abc…`, `toolu_…`) are replayed as a stable 9-character digest: the same id always
 * maps to the same value, in the assistant's call and in the tool result that answers it.
 */
export function mistralToolCallId(id: string): string {
  if (MISTRAL_ID.test(id)) return id;
  const digest = createHash('sha256').update(id).digest();
  let out = '';
  for (let at = 0; at < 9; at++) out += ALPHABET[(digest[at] ?? 0) % ALPHABET.length];
  return out;
}
