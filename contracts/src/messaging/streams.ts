/**
 * Every JetStream stream and durable consumer the mesh uses. Streams and consumers are created
 * or updated from this table at start-up (libs/messaging), so this is the one place to change
 * retention, limits or redelivery.
 */
export type StreamRetention = 'workqueue' | 'limits' | 'interest';

export interface StreamDefinition {
  /** Base name; the wire name is `SubjectSpace.streamName(name)`. */
  readonly name: string;
  readonly description: string;
  /** Relative subjects (prefix added at runtime). */
  readonly subjects: readonly string[];
  readonly retention: StreamRetention;
  readonly maxAgeMs: number;
  readonly maxBytes: number;
  readonly maxMsgSize: number;
  /** Window in which JetStream drops a second publish with the same Nats-Msg-Id. */
  readonly duplicateWindowMs: number;
}

export interface ConsumerDefinition {
  readonly stream: string;
  /** Base durable name; the wire name is `SubjectSpace.durableName(durable)`. */
  readonly durable: string;
  /** Relative filter subject. */
  readonly filterSubject: string;
  /** How long a delivery may go without ack or `working` before it is redelivered. */
  readonly ackWaitMs: number;
  /** Deliveries before the message goes to the dead-letter stream. */
  readonly maxDeliver: number;
  /** Delay before each redelivery after a failure (nak); the last value repeats. */
  readonly backoffMs: readonly number[];
  readonly maxAckPending: number;
}

const MiB = 1024 * 1024;
const DAY_MS = 24 * 60 * 60 * 1000;

export const STREAMS = {
  work: {
    name: 'WORK',
    description: 'Jobs waiting for a worker, by worker tag: fm.work.<tag>.<kind>',
    subjects: ['work.>'],
    retention: 'workqueue',
    maxAgeMs: 7 * DAY_MS,
    maxBytes: 1024 * MiB,
    maxMsgSize: 1 * MiB,
    duplicateWindowMs: 2 * 60 * 1000,
  },
  events: {
    name: 'EVENTS',
    description: 'Facts other services react to: fm.evt.<domain>.<event>',
    subjects: ['evt.>'],
    retention: 'limits',
    maxAgeMs: 7 * DAY_MS,
    maxBytes: 1024 * MiB,
    maxMsgSize: 1 * MiB,
    duplicateWindowMs: 2 * 60 * 1000,
  },
  runStreams: {
    name: 'RUNSTREAM',
    description:
      'What streaming AI steps say, per run, kept for late and reconnecting readers: fm.runstream.<run>.<step job>',
    subjects: ['runstream.>'],
    retention: 'limits',
    maxAgeMs: DAY_MS,
    maxBytes: 256 * MiB,
    maxMsgSize: 1 * MiB,
    duplicateWindowMs: 2 * 60 * 1000,
  },
  deadLetters: {
    name: 'DLQ',
    description: 'Messages that exhausted their deliveries or were rejected, with the reason',
    subjects: ['dlq.>'],
    retention: 'limits',
    maxAgeMs: 30 * DAY_MS,
    maxBytes: 256 * MiB,
    maxMsgSize: 2 * MiB,
    duplicateWindowMs: 2 * 60 * 1000,
  },
} as const satisfies Record<string, StreamDefinition>;

export type StreamKey = keyof typeof STREAMS;

/** Defaults shared by work consumers; a consumer may override any of them. */
export const WORK_CONSUMER_DEFAULTS = {
  ackWaitMs: 30_000,
  maxDeliver: 5,
  backoffMs: [1_000, 5_000, 15_000, 60_000],
  maxAckPending: 256,
} as const;

export const EVENT_CONSUMER_DEFAULTS = {
  ackWaitMs: 30_000,
  maxDeliver: 10,
  backoffMs: [500, 2_000, 10_000, 30_000],
  maxAckPending: 1_000,
} as const;
