import type { SecretCipher } from '../secrets/secret-cipher.js';
import type { StoredVariableContent, VariableContent } from './variable.repository.js';

/** The stored form of a value: plain text, or sealed under the current key and bound to its path. */
export function variableContent(
  cipher: SecretCipher,
  owner: { workspace: string; path: string },
  value: string,
  isSecret: boolean,
): VariableContent {
  if (!isSecret) return { isSecret: false, value, keyId: null, ciphertext: null };
  const sealed = cipher.seal(value, owner);
  return { isSecret: true, value: null, keyId: sealed.keyId, ciphertext: sealed.sealed };
}

/** A variable's value as text: a secret is opened here and nowhere else. */
export function plaintextOf(cipher: SecretCipher, row: StoredVariableContent): string {
  if (!row.isSecret) return row.value ?? '';
  return cipher.open(
    { keyId: row.keyId ?? '', sealed: row.ciphertext ?? Buffer.alloc(0) },
    { workspace: row.workspaceId, path: row.path },
  );
}
