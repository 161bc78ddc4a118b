import { createCipheriv, createDecipheriv, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import type { SecretKeyring } from './secret-keyring.js';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Something sealed: the id of the key that sealed it and `iv | tag | ciphertext`. */
export interface SealedValue {
  readonly keyId: string;
  readonly sealed: Buffer;
}

/** Why a sealed value did not open: its key is not in the keyring, or the key or bytes differ. */
export type OpenFailure = 'unknown_key' | 'mismatch';

/**
 * AES-256-GCM under a keyring's current key; any key of the ring opens what it sealed. The
 * additional data binds a ciphertext to what it belongs to (a variable, a job), so a sealed value
 * copied elsewhere does not open there. Callers word the failures: they know what was sealed.
 */
export class KeyringCipher {
  /** Key objects made once: from a Buffer, every cipher would import the key again. */
  private readonly keyObjects = new Map<string, KeyObject>();

  constructor(readonly keyring: SecretKeyring) {
    for (const [id, { key }] of keyring.keys) this.keyObjects.set(id, createSecretKey(key));
  }

  seal(plaintext: string, additionalData: Buffer): SealedValue {
    const { id } = this.keyring.current;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keyObjects.get(id)!, iv);
    cipher.setAAD(additionalData);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return { keyId: id, sealed: Buffer.concat([iv, cipher.getAuthTag(), body]) };
  }

  open(
    value: SealedValue,
    additionalData: Buffer,
  ): { ok: true; plaintext: string } | { ok: false; failure: OpenFailure } {
    const key = this.keyObjects.get(value.keyId);
    if (!key) return { ok: false, failure: 'unknown_key' };
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, value.sealed.subarray(0, IV_BYTES));
      decipher.setAAD(additionalData);
      decipher.setAuthTag(value.sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      const body = value.sealed.subarray(IV_BYTES + TAG_BYTES);
      return {
        ok: true,
        plaintext: Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8'),
      };
    } catch {
      return { ok: false, failure: 'mismatch' };
    }
  }

  /** Whether something sealed under `keyId` should be sealed again under the current key. */
  isStale(keyId: string): boolean {
    return keyId !== this.keyring.current.id;
  }
}
