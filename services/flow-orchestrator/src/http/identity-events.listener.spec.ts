import type { AuthenticationCache } from '@flowmesh/http';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { IdentityEventsListener } from './identity-events.listener.js';

describe('IdentityEventsListener', () => {
  const clear = vi.fn();
  let listener: IdentityEventsListener;

  beforeEach(() => {
    vi.useFakeTimers();
    clear.mockReset();
    // Its port: the cache it clears. The events arrive through `@FollowEvent` (an event that does
    // not match its contract as undefined).
    listener = new IdentityEventsListener({ clear } as unknown as AuthenticationCache<never>);
  });
  afterEach(() => {
    listener.onModuleDestroy();
    vi.useRealTimers();
  });

  const deliver = (payload: { stale_for_ms?: number } | undefined) => listener.onIdentityEvent(payload);
  const revoked = { workspace: 'main', email: 'a@example.test', prefix: 'fm_abc', by: 'a', at: 'now' };

  it('clears at once, and again a second after the registry replicas let go of what they read before', () => {
    deliver({ ...revoked, stale_for_ms: 3_000 });
    expect(clear).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(3_999);
    expect(clear).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    expect(clear).toHaveBeenCalledTimes(2);
  });

  it('clears again after 2 s when the event does not say, or is not what it should be', () => {
    deliver(revoked);
    deliver(undefined);
    expect(clear).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(2_000);
    expect(clear).toHaveBeenCalledTimes(4);
  });
});
