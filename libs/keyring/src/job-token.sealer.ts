import { MeshError } from '@flowmesh/contracts';
import { KeyringCipher } from './keyring-cipher.js';
import type { SecretKeyring } from './secret-keyring.js';

const PREFIX = 'sealed:v1:';

/**
 * Job tokens at rest (the orchestrator's runs, agent-runtime's accepted steps): sealed under `FLOWMESH_JOB_TOKEN_STORE_KEYS` (`KeyringCipher`, AES-256-GCM),
 * stored as `sealed:v1:<key id>:<base64url of iv | tag | ciphertext>`, bound to their job (the
 * job id is the additional data, so a sealed token copied onto another job's row does not open
 * there). Someone reading the database does not get tokens that act as the runs. A row written
 * before tokens were sealed opens as it is. Errors name the job and the key id, never a token.
 */
export class JobTokenSealer {
  private readonly cipher: KeyringCipher;

  constructor(keyring: SecretKeyring) {
    this.cipher = new KeyringCipher(keyring);
  }

  seal(token: string, jobId: string): string {
    const { keyId, sealed } = this.cipher.seal(token, Buffer.from(jobId, 'utf8'));
    return `${PREFIX}${keyId}:${sealed.toString('base64url')}`;
  }

  open(stored: string, jobId: string): string {
    if (!stored.startsWith(PREFIX)) return stored;
    const rest = stored.slice(PREFIX.length);
    const colon = rest.indexOf(':');
    const keyId = colon > 0 ? rest.slice(0, colon) : '';
    const sealed = Buffer.from(rest.slice(colon + 1), 'base64url');
    const opened = this.cipher.open({ keyId, sealed }, Buffer.from(jobId, 'utf8'));
    if (opened.ok) return opened.plaintext;
    throw new MeshError(
      'INTERNAL',
      opened.failure === 'unknown_key'
        ? `the job token of job ${jobId} was sealed with key "${keyId}", which FLOWMESH_JOB_TOKEN_STORE_KEYS does not hold`
        : `the job token of job ${jobId} does not open with key "${keyId}": the key differs or the row was altered`,
    );
  }
}
