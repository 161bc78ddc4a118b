import { describe, expect, it } from 'vitest';
import { splitNatsUrl } from './nats-url-credentials.util.js';

describe('splitNatsUrl', () => {
  it('takes the credentials out of the server URLs', () => {
    expect(splitNatsUrl('nats://resource-registry:s3cr%40t@127.0.0.1:4222, nats://h2:4222')).toEqual({
      servers: ['nats://127.0.0.1:4222', 'nats://h2:4222'],
      user: 'resource-registry',
      pass: 's3cr@t',
    });
  });

  it('leaves a URL without credentials as it is', () => {
    expect(splitNatsUrl('nats://127.0.0.1:4222')).toEqual({ servers: ['nats://127.0.0.1:4222'] });
  });
});
