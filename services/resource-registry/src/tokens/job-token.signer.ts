import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { JOB_TOKEN_PREFIX, readJobTokenClaims, type JobTokenClaims } from '@flowmesh/contracts';

/**
 * Job tokens are `fmj_<claims>.<signature>`: base64url JSON claims and their HMAC-SHA256 under the
 * job token key, verifiable without a database row (a job gets one per run, most never used twice).
 */
export class JobTokenSigner {
  private readonly key: Buffer;

  constructor(key: string | undefined) {
    this.key = key === undefined ? randomBytes(32) : Buffer.from(key, 'utf8');
  }

  sign(claims: JobTokenClaims): string {
    const body = Buffer.from(JSON.stringify(claims), 'utf8').toString('base64url');
    return `${JOB_TOKEN_PREFIX}${body}.${this.signature(body)}`;
  }

  /** The claims of a token this key signed, or undefined for anything else. Expiry is the caller's. */
  verify(token: string): JobTokenClaims | undefined {
    if (!token.startsWith(JOB_TOKEN_PREFIX)) return undefined;
    const [body, signature, extra] = token.slice(JOB_TOKEN_PREFIX.length).split('.');
    if (body === undefined || signature === undefined || extra !== undefined) return undefined;
    const expected = Buffer.from(this.signature(body), 'utf8');
    const given = Buffer.from(signature, 'utf8');
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
    return readJobTokenClaims(token);
  }

  private signature(body: string): string {
    return createHmac('sha256', this.key).update(`${JOB_TOKEN_PREFIX}${body}`).digest('base64url');
  }
}
