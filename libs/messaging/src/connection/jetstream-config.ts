import type { ConsumerDefinition, StreamDefinition, SubjectSpace } from '@flowmesh/contracts';
import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  StorageType,
  type ConsumerConfig,
  type StreamConfig,
} from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';

/**
 * How a deployment stores its streams: the contract's limits are production's; a small or
 * throwaway deployment (tests, a laptop) caps each stream's reservation and may keep it in memory.
 */
export interface StreamStorageOptions {
  replicas?: number;
  /** `memory` keeps messages in the server's memory: lost when it restarts (default `file`). */
  storage?: 'file' | 'memory';
  /** Upper bound of each stream's `max_bytes` (JetStream reserves it up front). */
  maxBytes?: number;
}

/**
 * The JetStream configuration the server should hold for a contract definition. Only the fields
 * set here are compared when deciding whether an existing stream or consumer needs an update.
 */
export function streamConfigFor(
  space: SubjectSpace,
  def: StreamDefinition,
  options: StreamStorageOptions = {},
): StreamConfig {
  const maxBytes = Math.min(def.maxBytes, options.maxBytes ?? def.maxBytes);
  return {
    name: space.streamName(def.name),
    description: def.description,
    subjects: def.subjects.map((subject) => space.subject(subject)),
    retention: def.retention,
    storage: options.storage === 'memory' ? StorageType.Memory : StorageType.File,
    discard: DiscardPolicy.Old,
    max_age: nanos(def.maxAgeMs),
    max_bytes: maxBytes,
    max_msg_size: Math.min(def.maxMsgSize, maxBytes),
    duplicate_window: nanos(def.duplicateWindowMs),
    num_replicas: options.replicas ?? 1,
  } as StreamConfig;
}

/**
 * A durable pull consumer with explicit acks. `max_deliver` is one more than the definition's:
 * the extra delivery only happens when the last allowed one was never settled (its worker died),
 * and the transport then dead-letters the message instead of leaving it stranded in the stream.
 * Backoff is applied by `nak(delay)`, not the server's `backoff` list, which would override
 * `ack_wait` and so break `working()` heartbeats for long jobs.
 */
export function consumerConfigFor(
  space: SubjectSpace,
  def: ConsumerDefinition,
  options: { deliverPolicy?: 'all' | 'new' } = {},
): ConsumerConfig {
  return {
    durable_name: space.durableName(def.durable),
    description: `${def.durable} on ${def.filterSubject}`,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: options.deliverPolicy === 'new' ? DeliverPolicy.New : DeliverPolicy.All,
    filter_subject: space.subject(def.filterSubject),
    ack_wait: nanos(def.ackWaitMs),
    max_deliver: def.maxDeliver + 1,
    max_ack_pending: def.maxAckPending,
  } as ConsumerConfig;
}

const STREAM_FIELDS = [
  'description',
  'retention',
  'storage',
  'discard',
  'max_age',
  'max_bytes',
  'max_msg_size',
  'duplicate_window',
  'num_replicas',
] as const;

const CONSUMER_FIELDS = [
  'description',
  'filter_subject',
  'ack_wait',
  'max_deliver',
  'max_ack_pending',
] as const;

/** Names of the fields whose server value differs from the wanted one (empty: up to date). */
export function streamDrift(current: StreamConfig, wanted: StreamConfig): string[] {
  const drift: string[] = STREAM_FIELDS.filter((field) => (current[field] ?? undefined) !== wanted[field]);
  const sorted = (subjects: readonly string[] | undefined) => [...(subjects ?? [])].sort().join(' ');
  if (sorted(current.subjects) !== sorted(wanted.subjects)) drift.push('subjects');
  return drift;
}

export function consumerDrift(current: ConsumerConfig, wanted: ConsumerConfig): string[] {
  return CONSUMER_FIELDS.filter((field) => (current[field] ?? undefined) !== wanted[field]);
}
