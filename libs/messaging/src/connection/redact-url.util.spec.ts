import { describe, expect, it } from 'vitest';
import { redactUrl } from './redact-url.util.js';

describe('redactUrl', () => {
  it('hides user and password', () => {
    expect(redactUrl('nats://svc:s3cret@nats.internal:4222')).toBe('nats://***@nats.internal:4222');
  });

  it('hides a bare token', () => {
    expect(redactUrl('nats://tok3n@127.0.0.1:4222')).toBe('nats://***@127.0.0.1:4222');
  });

  it('leaves a URL without credentials alone', () => {
    expect(redactUrl('nats://127.0.0.1:4222')).toBe('nats://127.0.0.1:4222');
  });
});
