import { defineEvent } from '@flowmesh/contracts';
import type { DiscoveryService } from '@nestjs/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { MeshConnection } from '../connection/mesh-connection.js';
import { EventFollowers } from './event-followers.js';
import { FollowEvent } from './follow-event.decorator.js';

const started = defineEvent('evt.test.started', z.object({ id: z.string() }));
const stopped = defineEvent('evt.test.stopped', z.object({ id: z.string(), why: z.string() }));

type Callback = (error: Error | null, message: { data: Uint8Array }) => void;

/** A connection whose subscriptions the test delivers to by hand, as NATS would on every replica. */
function fakeConnection() {
  const subscribed = new Map<string, Set<Callback>>();
  const conn = {
    space: { subject: (subject: string) => `fm-test.${subject}` },
    nc: {
      subscribe: (subject: string, options: { callback: Callback; queue?: string }) => {
        expect(options.queue).toBeUndefined();
        const callbacks = subscribed.get(subject) ?? new Set<Callback>();
        subscribed.set(subject, callbacks.add(options.callback));
        return {
          unsubscribe: () => {
            callbacks.delete(options.callback);
            if (callbacks.size === 0) subscribed.delete(subject);
          },
        };
      },
    },
  } as unknown as MeshConnection;
  const publish = (subject: string, payload: unknown) => {
    const data = new TextEncoder().encode(typeof payload === 'string' ? payload : JSON.stringify(payload));
    for (const callback of subscribed.get(`fm-test.${subject}`) ?? []) callback(null, { data });
  };
  return { conn, subscribed, publish };
}

class Follower {
  readonly heard: unknown[] = [];

  @FollowEvent(started)
  onStarted(event: { id: string }): void {
    this.heard.push(['started', event]);
  }

  @FollowEvent(started, { unparsed: true })
  @FollowEvent(stopped, { unparsed: true })
  onAny(event: { id: string } | undefined): void {
    this.heard.push(['any', event]);
  }

  @FollowEvent(stopped)
  onStopped(): Promise<void> {
    return Promise.reject(new Error('a follower that fails does not stop the others'));
  }
}

function followersOf(instances: object[], conn: MeshConnection): EventFollowers {
  const wrappers = instances.map((instance) => ({ instance, isDependencyTreeStatic: () => true }));
  const discovery = { getProviders: () => wrappers, getControllers: () => [] } as unknown as DiscoveryService;
  return new EventFollowers(discovery, conn);
}

describe('@FollowEvent and EventFollowers', () => {
  it('subscribes each followed event without a queue group, and hands the method the parsed event', () => {
    const { conn, subscribed, publish } = fakeConnection();
    const follower = new Follower();
    // Listed twice (a provider exported and imported): still followed once.
    const followers = followersOf([follower, follower, { plain: true }], conn);
    followers.onApplicationBootstrap();
    expect([...subscribed.keys()].sort()).toEqual(['fm-test.evt.test.started', 'fm-test.evt.test.stopped']);

    publish('evt.test.started', { id: 'a', extra: 1 });
    expect(follower.heard).toEqual([
      ['started', { id: 'a' }],
      ['any', { id: 'a' }],
    ]);
  });

  it('does not hand over an event that does not match its contract, unless asked to (as undefined)', () => {
    const { conn, publish } = fakeConnection();
    const follower = new Follower();
    followersOf([follower], conn).onApplicationBootstrap();
    publish('evt.test.started', { id: 7 });
    publish('evt.test.stopped', 'not json');
    expect(follower.heard).toEqual([
      ['any', undefined],
      ['any', undefined],
    ]);
  });

  it('stops following at shutdown', async () => {
    const { conn, subscribed, publish } = fakeConnection();
    const follower = new Follower();
    const followers = followersOf([follower], conn);
    followers.onApplicationBootstrap();
    await followers.beforeApplicationShutdown();
    expect(subscribed.size).toBe(0);
    publish('evt.test.started', { id: 'a' });
    expect(follower.heard).toEqual([]);
  });
});
