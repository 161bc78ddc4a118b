import { setTimeout as delay } from 'node:timers/promises';
import { STREAMS, type EventContract } from '@flowmesh/contracts';
import type { MeshConnection } from '../connection/mesh-connection.js';
import { parseEventData } from './listen-to-event.js';

/** One contract a replayed follow hears, and where its events go (`undefined`: did not match). */
export interface ReplayedEvent {
  readonly contract: EventContract;
  readonly onEvent: (event: unknown) => void;
  readonly unparsed: boolean;
  /** Events of the contract may have passed unseen: its consumer was recreated, or following broke. */
  readonly onReset?: () => void;
}

export interface ReplayedFollowOptions {
  /** Events stored this long before (re)starting are read again: clocks may differ. */
  readonly marginMs?: number;
  readonly retryDelayMs?: number;
  /** Said once per outage. */
  readonly onTrouble?: (message: string) => void;
}

export interface ReplayedFollow {
  /** How many consumers follow (one per filter on a NATS server that takes one filter per consumer). */
  readonly consumers: number;
  close(): Promise<void>;
}

const REPLAY_MARGIN_MS = 10_000;
const RETRY_DELAY_MS = 1_000;

/**
 * Follows `events` from the EVENTS stream, starting from `marginMs` before now: an ordered consumer
 * (ephemeral, in memory, gap-checked and recreated by the client) of this process alone, so every
 * replica reads every event, and one that starts before anything was cached. The contracts share
 * consumers: contracts differing only in their last token are one `prefix.>` filter; a server from
 * 2.10 takes all filters on one consumer, an older one gets a consumer per filter. Whenever the
 * following breaks (a consumer recreated, the stream gone or not yet made) the `onReset` of each of
 * its contracts is called (once each) and following starts again from the margin, retried every
 * `retryDelayMs` until it holds.
 */
export function followReplayedEvents(
  conn: MeshConnection,
  events: readonly ReplayedEvent[],
  options: ReplayedFollowOptions,
): ReplayedFollow {
  const bySubject = new Map<string, ReplayedEvent[]>();
  for (const event of events) {
    const subject = conn.space.subject(event.contract.subject);
    bySubject.set(subject, [...(bySubject.get(subject) ?? []), event]);
  }
  const filters = sharedFilters([...bySubject.keys()]);
  const all = [...filters.keys()];
  const groups = supportsFilterList(conn) ? [all] : all.map((filter) => [filter]);
  const resetsOf = (group: readonly string[]) => {
    const resets = new Set<() => void>();
    for (const filter of group)
      for (const subject of filters.get(filter)!)
        for (const { onReset } of bySubject.get(subject)!) if (onReset) resets.add(onReset);
    return () => resets.forEach((reset) => reset());
  };
  const stopped = new AbortController();
  const deliver = (subject: string, data: Uint8Array) => {
    const followers = bySubject.get(subject);
    if (!followers) return;
    const json = parseEventData(data);
    for (const { contract, onEvent, unparsed } of followers) {
      const parsed = contract.payload.safeParse(json);
      if (parsed.success) onEvent(parsed.data);
      else if (unparsed) onEvent(undefined);
    }
  };
  const loops = groups.map((group) =>
    followLoop(conn, group, deliver, resetsOf(group), options, stopped.signal),
  );
  return {
    consumers: groups.length,
    async close() {
      stopped.abort();
      await Promise.all(loops);
    },
  };
}

async function followLoop(
  conn: MeshConnection,
  filters: readonly string[],
  deliver: (subject: string, data: Uint8Array) => void,
  onReset: () => void,
  options: ReplayedFollowOptions,
  stopped: AbortSignal,
): Promise<void> {
  const margin = options.marginMs ?? REPLAY_MARGIN_MS;
  const stream = conn.space.streamName(STREAMS.events.name);
  const done = () => stopped.aborted || conn.nc.isClosed();
  let failures = 0;
  while (!done()) {
    try {
      const consumer = await conn.js.consumers.get(stream, {
        filter_subjects: filters.length === 1 ? filters[0] : [...filters],
        opt_start_time: new Date(Date.now() - margin).toISOString(),
      });
      const messages = await consumer.consume();
      const close = () => void messages.close().catch(() => undefined);
      stopped.addEventListener('abort', close);
      try {
        if (done()) break;
        failures = 0;
        void endOnGap(messages.status(), close);
        for await (const message of messages) deliver(message.subject, message.data);
      } finally {
        stopped.removeEventListener('abort', close);
        await messages.close().catch(() => undefined);
      }
    } catch (error) {
      if (done()) break;
      // The stream is made by the transport just after start: the first miss is expected.
      if (++failures === 2) {
        options.onTrouble?.(
          `cannot follow ${filters.join(', ')}: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
    if (done()) break;
    onReset();
    await delay(options.retryDelayMs ?? RETRY_DELAY_MS, undefined, { signal: stopped }).catch(
      () => undefined,
    );
  }
}

/** Notifications that say events may have been skipped. */
const GAPS = new Set(['consumer_deleted', 'reset', 'ordered_consumer_recreated']);

/**
 * Ends the following at a gap, so the loop drops and starts a fresh consumer from the margin. The
 * client's own recreation is not relied upon: it keeps the first start time beside its new start
 * sequence, which NATS 2.9 refuses, and it would retry that forever.
 */
async function endOnGap(status: AsyncIterable<{ type: string }>, end: () => void): Promise<void> {
  for await (const notification of status) {
    if (GAPS.has(notification.type)) {
      end();
      return;
    }
  }
}

/** Subjects differing only in their last token share one `prefix.>` filter: filter -> subjects. */
export function sharedFilters(subjects: readonly string[]): Map<string, string[]> {
  const byPrefix = new Map<string, string[]>();
  for (const subject of subjects) {
    const dot = subject.lastIndexOf('.');
    const prefix = dot > 0 ? subject.slice(0, dot) : subject;
    byPrefix.set(prefix, [...(byPrefix.get(prefix) ?? []), subject]);
  }
  return new Map(
    [...byPrefix].map(([prefix, group]) => [group.length > 1 ? `${prefix}.>` : group[0], group]),
  );
}

/** NATS 2.10 and later take several filters on one consumer. */
function supportsFilterList(conn: MeshConnection): boolean {
  const [major = 0, minor = 0] = (conn.nc.info?.version ?? '0.0').split('.').map(Number);
  return major > 2 || (major === 2 && minor >= 10);
}
