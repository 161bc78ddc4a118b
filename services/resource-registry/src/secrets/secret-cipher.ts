import { createCipheriv, createDecipheriv, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { MeshError } from '@flowmesh/contracts';
import type { SecretKey, SecretKeyring } from '@flowmesh/bootstrap';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A secret at rest: the id of the key that encrypted it and `iv | tag | ciphertext`. */
export interface SealedSecret {
  readonly keyId: string;
  readonly sealed: Buffer;
}

/**
 * AES-256-GCM under the keyring's current key. The additional data binds a ciphertext to the
 * variable it belongs to (workspace and path), so a sealed value copied onto another row does
 * not decrypt there. Errors name the item and the key id, never a value.
 */
export class SecretCipher {
  /** Key objects made once: from a Buffer, every cipher would import the key again (bench/registry). */
  private readonly keyObjects = new Map<string, KeyObject>();

  constructor(private readonly keyring: SecretKeyring) {}

  seal(plaintext: string, owner: SecretOwner): SealedSecret {
    const key = this.keyring.current;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keyObject(key), iv);
    cipher.setAAD(additionalData(owner));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return { keyId: key.id, sealed: Buffer.concat([iv, cipher.getAuthTag(), body]) };
  }

  open(secret: SealedSecret, owner: SecretOwner): string {
    const key = this.keyring.keys.get(secret.keyId);
    if (!key) {
      throw new MeshError(
        'INTERNAL',
        `secret ${owner.path} was encrypted with key "${secret.keyId}", which FLOWMESH_SECRET_KEYS does not hold`,
      );
    }
    try {
      const decipher = createDecipheriv(
        'aes-256-gcm',
        this.keyObject(key),
        secret.sealed.subarray(0, IV_BYTES),
      );
      decipher.setAAD(additionalData(owner));
      decipher.setAuthTag(secret.sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([
        decipher.update(secret.sealed.subarray(IV_BYTES + TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new MeshError(
        'INTERNAL',
        `secret ${owner.path} does not decrypt with key "${secret.keyId}": the key differs or the stored value was altered`,
      );
    }
  }

  private keyObject(key: SecretKey): KeyObject {
    let object = this.keyObjects.get(key.id);
    if (!object) {
      object = createSecretKey(key.key);
      this.keyObjects.set(key.id, object);
    }
    return object;
  }

  /** Whether a secret sealed under `keyId` should be sealed again under the current key. */
  isStale(keyId: string): boolean {
    return keyId !== this.keyring.current.id;
  }
}

export interface SecretOwner {
  readonly workspace: string;
  readonly path: string;
}

function additionalData(owner: SecretOwner): Buffer {
  return Buffer.from(`flowmesh-variable\0${owner.workspace}\0${owner.path}`, 'utf8');
}
