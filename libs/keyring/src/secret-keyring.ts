import { createHash } from 'node:crypto';
import type { z } from 'zod';

/** One AES-256 key and the id stored beside every ciphertext it made. */
export interface SecretKey {
  readonly id: string;
  readonly key: Buffer;
}

/**
 * The keys secrets are encrypted with: the first is current (every write uses it), the others
 * only decrypt what they wrote, so a key rotates by putting a new one first and keeping the old
 * one until every secret has been rewritten.
 */
export interface SecretKeyring {
  readonly current: SecretKey;
  readonly keys: ReadonlyMap<string, SecretKey>;
  /** True for the development key derived below: the registry warns at start. */
  readonly insecureDevelopmentKey: boolean;
}

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

/**
 * Parses a keyring setting such as `FLOWMESH_SECRET_KEYS` (`keyid:base64key,...`, each key 32 bytes). Returns the keyring or
 * the reason it is invalid; the reason never contains key material.
 */
export function parseSecretKeys(
  text: string,
): { ok: true; keyring: SecretKeyring } | { ok: false; problem: string } {
  const keys = new Map<string, SecretKey>();
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 0) return { ok: false, problem: 'must list at least one keyid:base64key' };
  for (const [index, entry] of entries.entries()) {
    const colon = entry.indexOf(':');
    const id = colon > 0 ? entry.slice(0, colon) : '';
    const where = `entry ${index + 1}`;
    if (!KEY_ID.test(id)) {
      return {
        ok: false,
        problem: `${where} must be keyid:base64key with a key id of letters, digits, '_' or '-' (at most 32)`,
      };
    }
    const encoded = entry.slice(colon + 1);
    const key = /^[A-Za-z0-9+/]+={0,2}$/.test(encoded) ? Buffer.from(encoded, 'base64') : Buffer.alloc(0);
    if (key.length !== 32) {
      return { ok: false, problem: `key "${id}" must be 32 bytes in base64 (openssl rand -base64 32)` };
    }
    if (keys.has(id)) return { ok: false, problem: `key id "${id}" appears twice` };
    keys.set(id, { id, key });
  }
  const current = keys.get(entries[0].slice(0, entries[0].indexOf(':')))!;
  return { ok: true, keyring: { current, keys, insecureDevelopmentKey: false } };
}

/**
 * Outside production, a service started without its keyring setting encrypts with this key:
 * SHA-256 of a fixed, public label (one per purpose), under the id `insecure-dev`. Anyone can
 * derive it, so it protects nothing; it exists so `npm start` and tests work without setup. With
 * `NODE_ENV=production` the setting is required, and since the production keyring never holds
 * `insecure-dev`, what was written under it cannot be read there either.
 */
export const INSECURE_DEVELOPMENT_KEY_ID = 'insecure-dev';

/** `purpose` names what the key is for; the registry's secret variables use the default. */
export function insecureDevelopmentKeyring(purpose = 'secret key'): SecretKeyring {
  const current: SecretKey = {
    id: INSECURE_DEVELOPMENT_KEY_ID,
    key: createHash('sha256')
      .update(`flowmesh insecure development ${purpose}: never use in production`)
      .digest(),
  };
  return { current, keys: new Map([[current.id, current]]), insecureDevelopmentKey: true };
}

/**
 * Checks a keyring setting in a config schema: required with `NODE_ENV=production` (where the
 * development key id is refused too), and well formed when given. Messages never hold key material.
 */
export function checkSecretKeysSetting(
  name: string,
  value: string | undefined,
  nodeEnv: string | undefined,
  ctx: z.RefinementCtx,
): void {
  const path = [name];
  if (value === undefined) {
    if (nodeEnv === 'production') {
      ctx.addIssue({
        code: 'custom',
        path,
        message: 'is required when NODE_ENV=production: keyid:base64key,... (a key: openssl rand -base64 32)',
      });
    }
    return;
  }
  const parsed = parseSecretKeys(value);
  if (!parsed.ok) ctx.addIssue({ code: 'custom', path, message: parsed.problem });
  else if (nodeEnv === 'production' && parsed.keyring.keys.has(INSECURE_DEVELOPMENT_KEY_ID)) {
    ctx.addIssue({
      code: 'custom',
      path,
      message: `must not use the key id "${INSECURE_DEVELOPMENT_KEY_ID}" in production`,
    });
  }
}

/** The keyring of a checked setting, or the development one (for `purpose`) when it is unset. */
export function secretKeyringOf(name: string, value: string | undefined, purpose?: string): SecretKeyring {
  if (value === undefined) return insecureDevelopmentKeyring(purpose);
  const parsed = parseSecretKeys(value);
  if (!parsed.ok) throw new Error(`${name} was not checked`);
  return parsed.keyring;
}
