import { randomBytes } from 'node:crypto';
import { ConfigError, loadServiceConfig } from '@flowmesh/bootstrap';
import { describe, expect, it } from 'vitest';
import { resourceRegistryConfigSchema } from '../resource-registry.config.js';

const key = () => randomBytes(32).toString('base64');
const load = (env: Record<string, string>) =>
  loadServiceConfig('resource-registry', resourceRegistryConfigSchema, {
    FLOWMESH_JOB_TOKEN_KEY: 'j'.repeat(40),
    ...env,
  });

function problemsOf(env: Record<string, string>): string {
  try {
    load(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('items configuration', () => {
  it('FLOWMESH_SECRET_KEYS: the first key is current, the others decrypt only', () => {
    const config = load({ FLOWMESH_SECRET_KEYS: `new:${key()}, old:${key()}` });
    expect(config.items.secretKeys.current.id).toBe('new');
    expect([...config.items.secretKeys.keys.keys()]).toEqual(['new', 'old']);
    expect(config.items.secretKeys.insecureDevelopmentKey).toBe(false);
  });

  it('is required with NODE_ENV=production; elsewhere the public development key stands in', () => {
    expect(problemsOf({ NODE_ENV: 'production' })).toContain(
      'FLOWMESH_SECRET_KEYS is required when NODE_ENV=production',
    );
    const dev = load({});
    expect(dev.items.secretKeys).toMatchObject({
      insecureDevelopmentKey: true,
      current: { id: 'insecure-dev' },
    });
    expect(problemsOf({ NODE_ENV: 'production', FLOWMESH_SECRET_KEYS: `insecure-dev:${key()}` })).toContain(
      'must not use the key id "insecure-dev" in production',
    );
  });

  it('a malformed key is a config error that never echoes the key', () => {
    const short = randomBytes(16).toString('base64');
    const message = problemsOf({ FLOWMESH_SECRET_KEYS: `k1:${short}` });
    expect(message).toContain('key "k1" must be 32 bytes in base64');
    expect(message).not.toContain(short);
    expect(problemsOf({ FLOWMESH_SECRET_KEYS: `k1:${key()},k1:${key()}` })).toContain(
      'key id "k1" appears twice',
    );
    expect(problemsOf({ FLOWMESH_SECRET_KEYS: key() })).toContain('entry 1 must be keyid:base64key');
  });

  it('FLOWMESH_REGISTRY_MAX_VALUE_BYTES defaults to 512 KiB and is bounded', () => {
    expect(load({}).items).toMatchObject({ maxValueBytes: 524_288, maxInterpolationDepth: 10 });
    expect(load({ FLOWMESH_REGISTRY_MAX_VALUE_BYTES: '2048' }).items.maxValueBytes).toBe(2048);
    expect(problemsOf({ FLOWMESH_REGISTRY_MAX_VALUE_BYTES: '12' })).toContain(
      'must be between 1024 and 67108864',
    );
  });
});
