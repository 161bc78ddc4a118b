import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@flowmesh/testing';
import { startRunApiMesh, type RunApiMesh } from './support/run-api-mesh.js';

/**
 * The run API keeps the identities the registry vouched for (here for ten minutes), and forgets
 * them when the registry announces a change (`evt.identity.*`): a revoked token is refused within
 * moments, not at the cache's time to live.
 */
describe('run API: identity events', () => {
  let mesh: RunApiMesh;
  beforeAll(async () => {
    mesh = await startRunApiMesh({ orchestratorEnv: { FLOWMESH_AUTH_CACHE_MS: '600000' } });
  }, 180_000);
  afterAll(async () => {
    await mesh?.stop();
  });

  it('refuses a revoked token at once although it was cached for ten minutes', async () => {
    const inMain = { actor: { token: mesh.tokens.admin }, workspace: 'main' };
    await mesh.identity.addUser({ ...inMain, email: 'carol@example.test', username: 'carol' });
    const made = await mesh.identity.createApiToken({ ...inMain, username: 'carol', label: 'revoked soon' });
    const list = async () =>
      (
        await fetch(`${mesh.orchestrator.url}/api/w/main/jobs/list`, {
          headers: { authorization: `Bearer ${made.token}` },
        })
      ).status;
    expect(await list()).toBe(200);
    expect(await list()).toBe(200); // from the cache now

    await mesh.identity.revokeApiToken({
      actor: { token: made.token },
      workspace: 'main',
      prefix: made.prefix,
    });
    // A minute is far past an event crossing NATS on a busy machine, and a tenth of the TTL.
    await waitFor(async () => (await list()) === 401, {
      timeoutMs: 60_000,
      description: 'the run API refusing the revoked token',
    });
  }, 180_000);
});
