import { setTimeout as delay } from 'node:timers/promises';
import {
  IDENTITY_EVENTS_SUBJECT,
  ITEM_EVENTS_SUBJECTS,
  ItemChangedEventSchema,
  STREAMS,
} from '@flowmesh/contracts';
import { AuthenticationCache } from '@flowmesh/http';
import { InjectMeshConnection, type MeshConnection } from '@flowmesh/messaging';
import {
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import type { Authenticated } from '../auth/authenticated.js';
import { FolderRepository } from '../folders/folder.repository.js';
import { ItemReadCache } from '../items/item-read.cache.js';

/** The item events that can make a cached row stale (NATS 2.9: one filter per consumer). */
const ITEM_SUBJECTS = [ITEM_EVENTS_SUBJECTS.resource, ITEM_EVENTS_SUBJECTS.variable];
/** Events from this long before (re)starting are read again: the registry's clock and NATS's may differ. */
const REPLAY_MARGIN_MS = 10_000;
const RETRY_DELAY_MS = 1_000;

interface Following {
  close(): Promise<unknown>;
}

/**
 * Every replica's read cache follows the item events of the EVENTS stream, its own included, so a
 * write made through another replica drops the row here within milliseconds rather than at the
 * cache's time to live. Likewise the identity caches (authentications, folder roles) follow
 * `evt.identity.>`: a token revoked, a member, group or folder changed on another replica clears
 * them here (any identity event clears both: they change rarely). Each replica reads every event: an ordered consumer of its own per
 * subject (ephemeral, in memory, gap-checked and recreated by the client), not the service's
 * shared durable, which would hand each event to one replica only.
 *
 * Whenever the following breaks (a consumer recreated, the stream gone), the whole cache is
 * dropped, since events may have passed unseen; the time to live bounds what happens meanwhile.
 */
@Injectable()
export class ItemEventsCacheListener implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly log = new Logger('ItemEventsCacheListener');
  private stopping = false;
  private readonly following = new Set<Following>();
  private loops: Promise<void>[] = [];
  /** Set on shutdown: ends a retry wait at once. */
  private readonly stopped = new AbortController();

  constructor(
    private readonly cache: ItemReadCache,
    private readonly authentications: AuthenticationCache<Authenticated>,
    private readonly folders: FolderRepository,
    @InjectMeshConnection() private readonly conn: MeshConnection,
  ) {}

  onApplicationBootstrap(): void {
    // From before anything could have been cached; the stream may not exist yet (the transport
    // creates it a moment later): following retries until it does.
    const since = Date.now() - REPLAY_MARGIN_MS;
    const items = this.cache.enabled
      ? ITEM_SUBJECTS.map((subject) => this.follow(subject, since, 'items'))
      : [];
    this.loops = [...items, this.follow(IDENTITY_EVENTS_SUBJECT, since, 'identity')];
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    this.stopped.abort();
    await Promise.all([...this.following].map((following) => following.close().catch(() => undefined)));
    await Promise.all(this.loops);
  }

  private async follow(
    relativeSubject: string,
    firstSince: number,
    kind: 'items' | 'identity',
  ): Promise<void> {
    const forget = kind === 'items' ? () => this.cache.invalidateAll() : () => this.forgetIdentities();
    const apply = kind === 'items' ? (data: Uint8Array) => this.apply(data) : () => this.forgetIdentities();
    const stream = this.conn.space.streamName(STREAMS.events.name);
    const subject = this.conn.space.subject(relativeSubject);
    let since = firstSince;
    let failures = 0;
    while (!this.stopping) {
      try {
        const consumer = await this.conn.js.consumers.get(stream, {
          filter_subjects: subject,
          opt_start_time: new Date(since).toISOString(),
        });
        const messages = await consumer.consume();
        this.following.add(messages);
        try {
          if (this.stopping) break;
          if (failures > 1) this.log.log(`following ${subject} again`);
          failures = 0;
          void this.dropAllOnReset(messages.status(), forget);
          for await (const message of messages) apply(message.data);
        } finally {
          this.following.delete(messages);
          await messages.close().catch(() => undefined);
        }
      } catch (error) {
        if (this.stopping || this.conn.nc.isClosed()) break;
        // The stream is created by the transport just after start: the first miss is expected.
        // Said once per outage, not once a second.
        if (++failures === 2) {
          this.log.warn(
            `cannot follow ${subject} (other replicas' changes are seen only at the caches' time to live meanwhile): ${
              error instanceof Error ? error.message : String(error)
            }`,
          );
        }
      }
      if (this.stopping || this.conn.nc.isClosed()) break;
      since = Date.now() - REPLAY_MARGIN_MS;
      forget();
      await delay(RETRY_DELAY_MS, undefined, { signal: this.stopped.signal }).catch(() => undefined);
    }
  }

  private apply(data: Uint8Array): void {
    let json: unknown;
    try {
      json = JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8'));
    } catch {
      return;
    }
    const event = ItemChangedEventSchema.safeParse(json);
    if (event.success) this.cache.invalidateChanged(event.data);
  }

  private forgetIdentities(): void {
    this.authentications.clear();
    this.folders.forgetRoles();
  }

  /** A consumer the client had to recreate may have skipped events: forget everything. */
  private async dropAllOnReset(status: AsyncIterable<{ type: string }>, forget: () => void): Promise<void> {
    for await (const notification of status) {
      if (notification.type === 'reset' || notification.type === 'ordered_consumer_recreated') forget();
    }
  }
}
