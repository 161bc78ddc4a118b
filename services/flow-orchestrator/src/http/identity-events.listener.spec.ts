import { IDENTITY_EVENTS } from '@flowmesh/contracts';
import type { AuthenticationCache } from '@flowmesh/http';
import type { MeshConnection } from '@flowmesh/messaging';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { IdentityEventsListener } from './identity-events.listener.js';

type Callback = (error: Error | null, message: { json<T>(): T }) => void;

describe('IdentityEventsListener', () => {
  const clear = vi.fn();
  const callbacks = new Map<string, Callback>();
  let listener: IdentityEventsListener;

  beforeEach(() => {
    vi.useFakeTimers();
    clear.mockReset();
    callbacks.clear();
    // Its ports: the cache it clears, and the subscriptions the events arrive on.
    const conn = {
      space: { subject: (subject: string) => subject },
      nc: {
        subscribe: (subject: string, options: { callback: Callback }) => {
          callbacks.set(subject, options.callback);
          return { unsubscribe: () => undefined };
        },
      },
    } as unknown as MeshConnection;
    listener = new IdentityEventsListener({ clear } as unknown as AuthenticationCache<never>, conn);
    listener.onModuleInit();
  });
  afterEach(() => {
    listener.onModuleDestroy();
    vi.useRealTimers();
  });

  const deliver = (payload: unknown) =>
    callbacks.get(IDENTITY_EVENTS.tokenRevoked.subject)!(null, { json: <T>() => payload as T });
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
    deliver({ nonsense: true });
    expect(clear).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(2_000);
    expect(clear).toHaveBeenCalledTimes(4);
  });
});
