import { defineEvent, STREAMS } from '@flowmesh/contracts';
import { FollowEvent, MeshClient, type MeshConnection } from '@flowmesh/messaging';
import { waitFor } from '@flowmesh/testing';
import type { DiscoveryService } from '@nestjs/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EventFollowers } from '../src/nest/event-followers.js';
import { MeshFixture } from './support/mesh-fixture.js';

const changed = {
  created: defineEvent('evt.replayed.created', z.object({ id: z.string() })),
  deleted: defineEvent('evt.replayed.deleted', z.object({ id: z.string() })),
};
const revoked = defineEvent('evt.revoked.token', z.object({ token: z.string() }));
const REPLAY = { replay: 'since-start', onReset: 'dropAll' } as const;

/** A replica's cache of ids, fed by the replayed events, dropped whole on a gap. */
class IdsCache {
  readonly heard: string[] = [];
  resets = 0;
  readonly revoked: string[] = [];
  revocationResets = 0;
  following = true;

  @FollowEvent(changed.created, { ...REPLAY, when: 'following' })
  @FollowEvent(changed.deleted, { ...REPLAY, when: 'following' })
  onChanged(event: { id: string }): void {
    this.heard.push(event.id);
  }

  dropAll(): void {
    this.resets++;
  }

  @FollowEvent(revoked, { replay: 'since-start', onReset: 'forgetTokens', unparsed: true })
  onRevoked(event: { token: string } | undefined): void {
    this.revoked.push(event?.token ?? '(unparsed)');
  }

  forgetTokens(): void {
    this.revocationResets++;
  }
}

function followersOf(instance: object, conn: MeshConnection): EventFollowers {
  const wrappers = [{ instance, isDependencyTreeStatic: () => true }];
  const discovery = { getProviders: () => wrappers, getControllers: () => [] } as unknown as DiscoveryService;
  return new EventFollowers(discovery, conn);
}

describe('@FollowEvent with replay: since start, on every replica, a gap dropped', () => {
  let mesh: MeshFixture;
  let publisher: MeshClient;
  let admin: MeshConnection;
  const started: EventFollowers[] = [];

  const startReplica = async (cache: IdsCache) => {
    const followers = followersOf(cache, await mesh.connect('replica'));
    followers.onApplicationBootstrap();
    started.push(followers);
    return followers;
  };
  const consumersOfEvents = async () => {
    const names: string[] = [];
    for await (const info of admin.jsm.consumers.list(mesh.space.streamName(STREAMS.events.name))) {
      names.push(info.name);
    }
    return names;
  };

  beforeAll(async () => {
    mesh = await MeshFixture.create('replay');
    admin = await mesh.connect('admin');
    publisher = new MeshClient(await mesh.connect('publisher'));
  });

  afterAll(async () => {
    for (const followers of started) await followers.beforeApplicationShutdown();
    await mesh?.dispose();
  });

  it('hears what was published shortly before it started, then every event, on each replica', async () => {
    await publisher.publishEvent(changed.created, { id: 'before-start' });
    const [first, second] = [new IdsCache(), new IdsCache()];
    await startReplica(first);
    await startReplica(second);
    await publisher.publishEvent(changed.deleted, { id: 'after-start' });
    // Not a contract the class follows, though inside its filter: not heard.
    await admin.js.publish(mesh.space.subject('evt.replayed.renamed'), JSON.stringify({ id: 'other' }));
    await publisher.publishEvent(changed.created, { id: 'last' });
    for (const cache of [first, second]) {
      await waitFor(() => cache.heard.includes('last'), {
        description: 'the replica to hear the last event',
      });
      expect(cache.heard).toEqual(['before-start', 'after-start', 'last']);
      expect(cache.resets).toBe(0);
    }
    // One consumer per filter on NATS 2.9 (evt.replayed.> and evt.revoked.token), one on 2.10+.
    const perReplica = (admin.nc.info?.version ?? '').startsWith('2.9.') ? 2 : 1;
    expect(await consumersOfEvents()).toHaveLength(2 * perReplica);
  });

  it('an event that does not match is heard as undefined only with unparsed', async () => {
    const cache = new IdsCache();
    await startReplica(cache);
    await admin.js.publish(mesh.space.subject(changed.created.subject), 'not json');
    await admin.js.publish(mesh.space.subject(revoked.subject), JSON.stringify({ token: 7 }));
    await publisher.publishEvent(changed.created, { id: 'after-bad' });
    await waitFor(() => cache.heard.includes('after-bad') && cache.revoked.includes('(unparsed)'), {
      description: 'the bad events to pass',
    });
    expect(cache.heard.filter((id) => id === 'not json')).toEqual([]);
  });

  it('drops the cache when its consumer is lost, and follows on', async () => {
    const cache = new IdsCache();
    const before = new Set(await consumersOfEvents());
    await startReplica(cache);
    await publisher.publishEvent(changed.created, { id: 'before-gap' });
    await waitFor(() => cache.heard.includes('before-gap'), { description: 'the event before the gap' });
    const mine = (await consumersOfEvents()).filter((name) => !before.has(name));
    expect(mine.length).toBeGreaterThan(0);
    expect(cache.resets).toBe(0);

    for (const name of mine)
      await admin.jsm.consumers.delete(mesh.space.streamName(STREAMS.events.name), name);
    // NATS tells the pull at once (409): each consumer's own methods drop their cache.
    await waitFor(() => cache.resets > 0 && cache.revocationResets > 0, {
      description: 'the lost consumers to drop the caches',
    });

    await publisher.publishEvent(changed.deleted, { id: 'after-gap' });
    await waitFor(() => cache.heard.includes('after-gap'), {
      description: 'following to go on after the gap',
    });
  });

  it('follows nothing when its `when` property is false, and stops at shutdown', async () => {
    const cache = new IdsCache();
    cache.following = false;
    const followers = await startReplica(cache);
    await publisher.publishEvent(changed.created, { id: 'unfollowed' });
    await publisher.publishEvent(revoked, { token: 't' });
    await waitFor(() => cache.revoked.includes('t'), { description: 'the revocation' });
    expect(cache.heard).toEqual([]);

    await followers.beforeApplicationShutdown();
    await publisher.publishEvent(revoked, { token: 'after-shutdown' });
    // A replica still following hears it; the one shut down does not.
    const other = new IdsCache();
    await startReplica(other);
    await waitFor(() => other.revoked.includes('after-shutdown'), {
      description: 'a running replica to hear it',
    });
    expect(cache.revoked).not.toContain('after-shutdown');
  });
});
