import { secondDropAfterMs, type ItemChangedEvent } from '@flowmesh/contracts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CredentialsInvalidationListener } from './credentials-invalidation.listener.js';
import type { RegistryCredentialsResolver } from './registry-credentials.resolver.js';

const resourceUpdated = (staleForMs?: number): ItemChangedEvent => ({
  kind: 'resource',
  change: 'updated',
  workspace: 'main',
  path: 'f/ai/openai',
  by: 'admin',
  at: new Date().toISOString(),
  ...(staleForMs !== undefined ? { stale_for_ms: staleForMs } : {}),
});

describe('CredentialsInvalidationListener', () => {
  const invalidateResource = vi.fn();
  let listener: CredentialsInvalidationListener;

  beforeEach(() => {
    vi.useFakeTimers();
    invalidateResource.mockReset();
    // Its own port: the resolver's cache, which the listener only drops entries of.
    const resolver = { cache: { invalidateResource } } as unknown as RegistryCredentialsResolver;
    listener = new CredentialsInvalidationListener(resolver);
  });
  afterEach(() => {
    listener.onModuleDestroy();
    vi.useRealTimers();
  });

  it('drops at once, and again a second after the registry replicas may still answer as before', () => {
    listener.onResourceUpdated(resourceUpdated(5_000));
    expect(invalidateResource).toHaveBeenCalledTimes(1);
    expect(invalidateResource).toHaveBeenCalledWith('main', 'f/ai/openai');
    vi.advanceTimersByTime(5_999);
    expect(invalidateResource).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    expect(invalidateResource).toHaveBeenCalledTimes(2);
  });

  it('waits 2 s after an event from a registry that does not say', () => {
    listener.onResourceUpdated(resourceUpdated());
    vi.advanceTimersByTime(1_999);
    expect(invalidateResource).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    expect(invalidateResource).toHaveBeenCalledTimes(2);
  });

  it('never waits longer than its own cache could keep an entry', () => {
    expect(secondDropAfterMs(0)).toBe(1_000);
    expect(secondDropAfterMs(3_600_000)).toBe(600_000);
  });
});
