import { MeshError } from '@flowmesh/contracts';
import { KeyringCipher, type SealedValue, type SecretKeyring } from '@flowmesh/keyring';

/** A secret at rest: the id of the key that encrypted it and `iv | tag | ciphertext`. */
export type SealedSecret = SealedValue;

/**
 * Secret variables under `FLOWMESH_SECRET_KEYS` (`KeyringCipher`, AES-256-GCM). The additional
 * data binds a ciphertext to the variable it belongs to (workspace and path), so a sealed value
 * copied onto another row does not decrypt there. Errors name the item and the key id, never a
 * value.
 */
export class SecretCipher {
  private readonly cipher: KeyringCipher;

  constructor(keyring: SecretKeyring) {
    this.cipher = new KeyringCipher(keyring);
  }

  seal(plaintext: string, owner: SecretOwner): SealedSecret {
    return this.cipher.seal(plaintext, additionalData(owner));
  }

  open(secret: SealedSecret, owner: SecretOwner): string {
    const opened = this.cipher.open(secret, additionalData(owner));
    if (opened.ok) return opened.plaintext;
    throw new MeshError(
      'INTERNAL',
      opened.failure === 'unknown_key'
        ? `secret ${owner.path} was encrypted with key "${secret.keyId}", which FLOWMESH_SECRET_KEYS does not hold`
        : `secret ${owner.path} does not decrypt with key "${secret.keyId}": the key differs or the stored value was altered`,
    );
  }

  /** Whether a secret sealed under `keyId` should be sealed again under the current key. */
  isStale(keyId: string): boolean {
    return this.cipher.isStale(keyId);
  }
}

export interface SecretOwner {
  readonly workspace: string;
  readonly path: string;
}

function additionalData(owner: SecretOwner): Buffer {
  return Buffer.from(`flowmesh-variable\0${owner.workspace}\0${owner.path}`, 'utf8');
}
