import { createHmac } from 'node:crypto';
import { MeshError } from '@flowmesh/contracts';
import { describe, expect, it } from 'vitest';
import { checkCredential, credentialOf } from './route-authentication.js';

const body = Buffer.from('{"action":"opened",  "n": 1}');
const hex = (secret: string, text: Buffer | string) =>
  createHmac('sha256', secret).update(text).digest('hex');
const now = 1_800_000_000_000;

describe('route credentials', () => {
  it('checks an api key in its header', () => {
    const key = credentialOf('api_key', { api_key_header: 'X-Api-Key', api_key_secret: 'k3y' })!;
    expect(checkCredential(key, { 'x-api-key': 'k3y' }, body)).toBeUndefined();
    expect(checkCredential(key, { 'x-api-key': 'k3z' }, body)?.message).toBe('invalid api key');
    expect(checkCredential(key, {}, body)?.message).toBe('invalid api key');
  });

  it('checks basic credentials and challenges', () => {
    const basic = credentialOf('basic_http', { username: 'ada', password: 'p:w' })!;
    const auth = (text: string) => ({ authorization: `Basic ${Buffer.from(text).toString('base64')}` });
    expect(checkCredential(basic, auth('ada:p:w'), body)).toBeUndefined();
    expect(checkCredential(basic, auth('ada:p'), body)).toEqual({
      message: 'invalid credentials',
      challenge: 'Basic realm="Restricted Area"',
    });
    expect(checkCredential(basic, { authorization: 'Bearer x' }, body)).toBeDefined();
  });

  it('checks a GitHub signature over the raw bytes', () => {
    const github = credentialOf('signature', { signature_provider: 'Github', secret_key: 's3cret' })!;
    const good = `sha256=${hex('s3cret', body)}`;
    expect(checkCredential(github, { 'x-hub-signature-256': good }, body)).toBeUndefined();
    // The same JSON re-serialized is other bytes: refused.
    const reserialized = Buffer.from(JSON.stringify(JSON.parse(body.toString())));
    expect(checkCredential(github, { 'x-hub-signature-256': good }, reserialized)?.message).toBe(
      'signature invalid',
    );
    expect(checkCredential(github, {}, body)?.message).toContain('missing header');
  });

  it('checks a Stripe signature and its timestamp', () => {
    const stripe = credentialOf('signature', { signature_provider: 'stripe', secret_key: 'whsec' })!;
    const t = String(now / 1000);
    const header = `t=${t},v1=${'0'.repeat(64)},v1=${hex('whsec', `${t}.${body.toString()}`)}`;
    expect(checkCredential(stripe, { 'stripe-signature': header }, body, now)).toBeUndefined();
    expect(checkCredential(stripe, { 'stripe-signature': header }, body, now + 301_000)?.message).toContain(
      'too old',
    );
    expect(
      checkCredential(stripe, { 'stripe-signature': `t=${t},v1=${'0'.repeat(64)}` }, body, now)?.message,
    ).toBe('signature invalid');
  });

  it('checks a custom HMAC with its prefix and encoding', () => {
    const custom = credentialOf('signature', {
      signature_provider: 'custom',
      secret_key: 'k',
      authentication_config: {
        signature_header_name: 'X-Sig',
        algorithm: 'sha256',
        encoding: 'base64',
        signature_prefix: 'v1=',
      },
    })!;
    const good = `v1=${createHmac('sha256', 'k').update(body).digest('base64')}`;
    expect(checkCredential(custom, { 'x-sig': good }, body)).toBeUndefined();
    expect(checkCredential(custom, { 'x-sig': good.slice(3) }, body)?.message).toBe('signature invalid');
  });

  it('names the route field when the resource holds something else', () => {
    const error = (() => {
      try {
        credentialOf('api_key', { username: 'x' });
      } catch (caught) {
        return caught as MeshError;
      }
    })();
    expect(error).toBeInstanceOf(MeshError);
    expect(error?.details).toMatchObject({ issues: [{ path: 'authentication_resource_path' }] });
  });
});
