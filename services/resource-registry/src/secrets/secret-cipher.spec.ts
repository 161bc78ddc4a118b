import { randomBytes } from 'node:crypto';
import { type MeshError } from '@flowmesh/contracts';
import { describe, expect, it } from 'vitest';
import { SecretCipher } from './secret-cipher.js';
import { parseSecretKeys, type SecretKeyring } from '@flowmesh/keyring';

function keyring(text: string): SecretKeyring {
  const parsed = parseSecretKeys(text);
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.keyring;
}

const a = randomBytes(32).toString('base64');
const b = randomBytes(32).toString('base64');
const owner = { workspace: 'main', path: 'u/alice/key' };

describe('SecretCipher', () => {
  it('seals with the current key (fresh IV each time) and opens its own output', () => {
    const cipher = new SecretCipher(keyring(`a:${a}`));
    const one = cipher.seal('s3cret', owner);
    const two = cipher.seal('s3cret', owner);
    expect(one.keyId).toBe('a');
    expect(one.sealed.equals(two.sealed)).toBe(false);
    expect(one.sealed.includes(Buffer.from('s3cret'))).toBe(false);
    expect(cipher.open(one, owner)).toBe('s3cret');
  });

  it('after rotation, opens what the old key sealed and reports it stale', () => {
    const sealed = new SecretCipher(keyring(`a:${a}`)).seal('old', owner);
    const rotated = new SecretCipher(keyring(`b:${b},a:${a}`));
    expect(rotated.open(sealed, owner)).toBe('old');
    expect(rotated.isStale(sealed.keyId)).toBe(true);
    expect(rotated.seal('new', owner).keyId).toBe('b');
  });

  it('refuses a key it does not hold, another owner, and altered bytes, without the value in the error', () => {
    const sealed = new SecretCipher(keyring(`a:${a}`)).seal('do-not-leak', owner);
    const other = new SecretCipher(keyring(`b:${b}`));
    const errors = [
      () => other.open(sealed, owner),
      () => new SecretCipher(keyring(`a:${a}`)).open(sealed, { workspace: 'main', path: 'u/alice/other' }),
      () => {
        const altered = Buffer.from(sealed.sealed);
        altered[altered.length - 1] ^= 1;
        new SecretCipher(keyring(`a:${a}`)).open({ keyId: 'a', sealed: altered }, owner);
      },
    ].map((open) => {
      try {
        open();
      } catch (error) {
        return error as MeshError;
      }
      throw new Error('expected a failure');
    });
    expect(errors.map((e) => e.code)).toEqual(['INTERNAL', 'INTERNAL', 'INTERNAL']);
    expect(errors[0]?.message).toBe(
      'secret u/alice/key was encrypted with key "a", which FLOWMESH_SECRET_KEYS does not hold',
    );
    for (const error of errors) expect(error.message).not.toContain('do-not-leak');
  });
});
