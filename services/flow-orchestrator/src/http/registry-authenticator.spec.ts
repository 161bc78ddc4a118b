import type { CallerIdentity } from '@flowmesh/contracts';
import { AuthenticationCache } from '@flowmesh/http';
import type { MeshClient } from '@flowmesh/messaging';
import { describe, expect, it, vi } from 'vitest';
import { identityCache, RegistryAuthenticator } from './registry-authenticator.js';

const identity = (username: string) => ({ workspace: 'main', username }) as CallerIdentity;

/** A registry whose answers the test releases one by one. */
function slowRegistry() {
  const answers: Array<(identity: CallerIdentity) => void> = [];
  const request = vi.fn(() => new Promise<CallerIdentity>((resolve) => answers.push(resolve)));
  return { mesh: { request } as unknown as MeshClient, request, answers };
}

describe('RegistryAuthenticator', () => {
  it('asks the registry once for a burst of requests with one token', async () => {
    const registry = slowRegistry();
    const authenticator = new RegistryAuthenticator(registry.mesh, new AuthenticationCache(1_000));
    const burst = [1, 2, 3].map(() => authenticator.authenticate('tok', 'main'));
    registry.answers[0](identity('alice'));
    expect((await Promise.all(burst)).map((caller) => caller.username)).toEqual(['alice', 'alice', 'alice']);
    expect(await authenticator.authenticate('tok', 'main')).toMatchObject({ username: 'alice' });
    expect(registry.request).toHaveBeenCalledTimes(1);
  });

  it('neither joins nor keeps an answer asked for before an identity change', async () => {
    const registry = slowRegistry();
    const cache = new AuthenticationCache(1_000);
    const authenticator = new RegistryAuthenticator(registry.mesh, cache);
    const before = authenticator.authenticate('tok', 'main');
    cache.clear();
    const after = authenticator.authenticate('tok', 'main');
    expect(registry.request).toHaveBeenCalledTimes(2);
    registry.answers[0](identity('before'));
    registry.answers[1](identity('after'));
    expect((await before).username).toBe('before');
    expect((await after).username).toBe('after');
    expect(await authenticator.authenticate('tok', 'main')).toMatchObject({ username: 'after' });
    expect(registry.request).toHaveBeenCalledTimes(2);
  });

  it('shares nothing with the cache off', async () => {
    const registry = slowRegistry();
    const authenticator = new RegistryAuthenticator(registry.mesh, new AuthenticationCache(0));
    const both = [authenticator.authenticate('tok', 'main'), authenticator.authenticate('tok', 'main')];
    registry.answers.forEach((answer) => answer(identity('alice')));
    await Promise.all(both);
    expect(registry.request).toHaveBeenCalledTimes(2);
  });

  it('keeps an identity no longer than its token is valid', () => {
    const cache = identityCache(1_000);
    const expiring = { ...identity('alice'), tokenExpiresAt: new Date(500).toISOString() };
    cache.set('k', expiring, 0);
    expect(cache.get('k', 499)).toBe(expiring);
    expect(cache.get('k', 500)).toBeUndefined();
    const lasting = { ...identity('bob'), tokenExpiresAt: null };
    cache.set('b', lasting, 0);
    expect(cache.get('b', 999)).toBe(lasting);
    expect(cache.get('b', 1_000)).toBeUndefined();
  });
});
