import { createCipheriv, createDecipheriv, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import type { SecretKeyring } from '@flowmesh/bootstrap';
import { MeshError } from '@flowmesh/contracts';

const PREFIX = 'sealed:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Job tokens at rest: AES-256-GCM under the current key of `FLOWMESH_JOB_TOKEN_STORE_KEYS`,
 * stored as `sealed:v1:<key id>:<base64url of iv | tag | ciphertext>`, bound to their job (the
 * job id is the additional data, so a sealed token copied onto another job's row does not open
 * there). Someone reading the database does not get tokens that act as the runs. A row written
 * before tokens were sealed opens as it is. Errors name the job and the key id, never a token.
 */
export class JobTokenSealer {
  private readonly keyObjects = new Map<string, KeyObject>();

  constructor(private readonly keyring: SecretKeyring) {
    for (const [id, { key }] of keyring.keys) this.keyObjects.set(id, createSecretKey(key));
  }

  seal(token: string, jobId: string): string {
    const { id } = this.keyring.current;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keyObjects.get(id)!, iv);
    cipher.setAAD(Buffer.from(jobId, 'utf8'));
    const body = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
    return `${PREFIX}${id}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  open(stored: string, jobId: string): string {
    if (!stored.startsWith(PREFIX)) return stored;
    const rest = stored.slice(PREFIX.length);
    const colon = rest.indexOf(':');
    const keyId = rest.slice(0, colon);
    const key = colon > 0 ? this.keyObjects.get(keyId) : undefined;
    if (!key) {
      throw new MeshError(
        'INTERNAL',
        `the job token of job ${jobId} was sealed with key "${keyId}", which FLOWMESH_JOB_TOKEN_STORE_KEYS does not hold`,
      );
    }
    const sealed = Buffer.from(rest.slice(colon + 1), 'base64url');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(jobId, 'utf8'));
      decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([
        decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new MeshError(
        'INTERNAL',
        `the job token of job ${jobId} does not open with key "${keyId}": the key differs or the row was altered`,
      );
    }
  }
}
