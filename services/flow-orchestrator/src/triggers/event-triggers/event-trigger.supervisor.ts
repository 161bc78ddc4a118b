import { hostname } from 'node:os';
import { createRegistryItemsClient, MeshError, type RegistryItemsClient } from '@flowmesh/contracts';
import { MeshClient } from '@flowmesh/messaging';
import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { OwnerTokens } from '../owner-tokens.js';
import { connectionOf, resourceFieldOf } from './connection-resource.js';
import { EVENT_LISTENERS, redacted, type EventListener, type RunningListener } from './event-listener.js';
import { EventTriggerStore, type EventTriggerRow } from './event-trigger.store.js';
import { eventTriggerLabel } from './event-trigger-label.js';
import { TriggerLeases } from './trigger-leases.js';
import { TriggerRunStarter } from './trigger-run.starter.js';

/** How often each replica looks for triggers nobody listens to, and pings its own (ms). */
export const EVENT_TRIGGER_POLL_MS = Symbol('EVENT_TRIGGER_POLL_MS');

/** Backoff between attempts to reach a broker: doubling from the first, capped. */
const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 30_000;
/** A connection that lasted this long resets the backoff. */
const STABLE_AFTER_MS = 30_000;

/** A trigger this replica holds the lease of, and its listener's loop. */
interface Held {
  readonly key: string;
  readonly row: EventTriggerRow;
  stopped: boolean;
  running?: RunningListener;
  /** Wakes the loop from its backoff when it is stopped. */
  wake?: () => void;
  loop?: Promise<void>;
}

const keyOf = (row: Pick<EventTriggerRow, 'workspace_id' | 'kind' | 'path'>) =>
  JSON.stringify([row.workspace_id, row.kind, row.path]);

/**
 * Runs the event triggers' listeners, one replica per trigger. Every replica polls the enabled
 * triggers; for each one nobody listens to it takes the trigger's lease (`TriggerLeases`: a
 * PostgreSQL advisory lock, released at once when its holder dies) and starts the kind's
 * listener with the connection read through the registry as the trigger's owner. A listener
 * that fails or whose broker goes away is started again with backoff while the trigger's state
 * says `error`, the last error and since when; a trigger edited, disabled or deleted has its
 * listener stopped (and started again at its new revision, maybe on another replica).
 */
@Injectable()
export class EventTriggerSupervisor implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly log = new Logger(EventTriggerSupervisor.name);
  private readonly items: RegistryItemsClient;
  private readonly held = new Map<string, Held>();
  private readonly byKind: ReadonlyMap<string, EventListener>;
  /** `host:pid`: who listens, as the trigger shows it. */
  readonly serverId = `${hostname()}:${process.pid}`;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private again = false;
  private closed = false;

  constructor(
    mesh: MeshClient,
    private readonly store: EventTriggerStore,
    private readonly leases: TriggerLeases,
    private readonly starter: TriggerRunStarter,
    private readonly owners: OwnerTokens,
    @Inject(EVENT_LISTENERS) listeners: readonly EventListener[],
    @Inject(EVENT_TRIGGER_POLL_MS) private readonly pollMs: number,
  ) {
    this.items = createRegistryItemsClient(mesh);
    this.byKind = new Map(listeners.map((listener) => [listener.kind, listener]));
  }

  onApplicationBootstrap(): void {
    this.schedule(0);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.polling?.catch(() => undefined);
    await Promise.all([...this.held.values()].map((held) => this.stop(held)));
    await this.leases.close();
  }

  /** A trigger was saved, enabled, disabled or deleted here: look again now rather than at the next poll. */
  changed(): void {
    if (this.polling) this.again = true;
    else this.schedule(0);
  }

  private schedule(delayMs: number): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.polling = this.poll()
        .catch((error: unknown) => this.log.warn(`event triggers: poll failed (${(error as Error).message})`))
        .finally(() => {
          this.polling = undefined;
          const now = this.again;
          this.again = false;
          this.schedule(now ? 0 : this.pollMs);
        });
    }, delayMs);
  }

  private async poll(): Promise<void> {
    if (!(await this.leases.alive())) {
      // Another replica may hold these now: stop them all, take them again once the session is back.
      await Promise.all([...this.held.values()].map((held) => this.stop(held, false)));
      return;
    }
    const rows = (await this.store.enabled()).filter((row) => this.byKind.has(row.kind));
    const current = new Map(rows.map((row) => [keyOf(row), row]));
    for (const held of [...this.held.values()]) {
      const row = current.get(held.key);
      if (!row || row.revision !== held.row.revision) await this.stop(held);
    }
    for (const [key, row] of current) {
      if (this.closed) return;
      if (this.held.has(key) || !(await this.leases.tryAcquire(key))) continue;
      // Read again under the lease: the row polled may be older than a save just made.
      const fresh = await this.store.find(row.workspace_id, row.kind, row.path);
      if (!fresh || fresh.mode !== 'enabled') {
        await this.leases.release(key);
        continue;
      }
      const held: Held = { key, row: fresh, stopped: false };
      this.held.set(key, held);
      held.loop = this.listen(held);
    }
    await this.store.ping(
      this.serverId,
      [...this.held.values()].map((held) => held.row),
    );
  }

  /** Stops the trigger's listener, then gives up its lease (`release` false: the session is gone anyway). */
  private async stop(held: Held, release = true): Promise<void> {
    held.stopped = true;
    held.wake?.();
    await held.running?.stop().catch(() => undefined);
    await held.loop;
    this.held.delete(held.key);
    if (release) await this.leases.release(held.key);
  }

  /** The listener's life while this replica holds the trigger: connect, consume, on failure retry with backoff. */
  private async listen(held: Held): Promise<void> {
    const { row } = held;
    const listener = this.byKind.get(row.kind)!;
    const name = `${row.kind} trigger ${row.workspace_id}/${row.path}`;
    let retryMs = FIRST_RETRY_MS;
    let failing = false;
    let runsFailing = false;
    let secrets: string[] = [];
    while (!held.stopped && !this.closed) {
      const startedAt = Date.now();
      let failure: unknown;
      try {
        // A retry leaves the error shown (and its start) until the listener is back.
        if (!failing) await this.report(held, 'connecting', null);
        const value = await this.connectionValue(row);
        secrets = stringsOf(value);
        const connection = connectionOf(row.kind, value);
        const running = await listener.start({
          trigger: row,
          connection,
          deliver: async (message) => {
            try {
              await this.starter.deliver(row, message);
            } catch (error) {
              // The broker keeps the message (not acknowledged); the trigger says why it waits.
              runsFailing = true;
              await this.report(
                held,
                'error',
                `a message could not start its run: ${redacted(error, secrets)}`,
              );
              throw error;
            }
            if (runsFailing) {
              runsFailing = false;
              await this.report(held, 'listening', null);
            }
          },
          listening: () => {
            failing = false;
            void this.report(held, 'listening', null);
          },
        });
        held.running = running;
        if (held.stopped) await running.stop();
        failure = await running.ended;
      } catch (error) {
        failure = error;
      }
      held.running = undefined;
      if (held.stopped || this.closed) return;
      const message = redacted(failure, secrets);
      this.log.warn(`${name}: ${message}; trying again with backoff`);
      failing = true;
      await this.report(held, 'error', message);
      const delayMs = Date.now() - startedAt > STABLE_AFTER_MS ? FIRST_RETRY_MS : retryMs;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delayMs);
        held.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      held.wake = undefined;
      retryMs = Math.min(MAX_RETRY_MS, delayMs * 2);
    }
  }

  /** The connection's resource, read as the trigger's owner (its `$var:` secrets resolved by the registry). */
  private async connectionValue(row: EventTriggerRow): Promise<unknown> {
    const field = resourceFieldOf(row.kind);
    if (field === undefined) return null;
    const path = row.config[field];
    if (typeof path !== 'string') {
      throw new MeshError('INTERNAL', `the trigger has no ${field}`);
    }
    const token = this.owners.open(
      { sealed: row.owner_token_sealed },
      eventTriggerLabel(row.kind, row.workspace_id, row.path),
    );
    try {
      return (
        await this.items.getResourceValueInterpolated({ actor: { token }, workspace: row.workspace_id, path })
      ).value;
    } catch (error) {
      const code = error instanceof MeshError ? error.code : 'error';
      throw new Error(
        code === 'NOT_FOUND' || code === 'PERMISSION_DENIED' || code === 'UNAUTHENTICATED'
          ? `the resource ${path} cannot be read as the trigger's owner ${row.permissioned_as} (${code}): save the trigger again`
          : `the resource ${path} could not be read (${code})`,
        { cause: error },
      );
    }
  }

  private async report(held: Held, state: 'connecting' | 'listening' | 'error', error: string | null) {
    if (held.stopped) return;
    await this.store
      .report(held.row, this.serverId, state, error)
      .catch((failure: unknown) =>
        this.log.warn(`event triggers: state not recorded (${(failure as Error).message})`),
      );
  }
}

/** Fields of a connection's resource that hold secrets (`password`, `token`, `seed`, `jwt`, ...). */
const SECRET_FIELD = /pass|token|seed|jwt|secret|key|cert/i;

/** Every secret string in a resource's value: what an error message must never show. */
function stringsOf(value: unknown, secret = false): string[] {
  if (typeof value === 'string') return secret ? [value] : [];
  if (Array.isArray(value)) return value.flatMap((item) => stringsOf(item, secret));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([name, item]) =>
      stringsOf(item, secret || SECRET_FIELD.test(name)),
    );
  }
  return [];
}
