import type { EventTriggerKind } from '@flowmesh/contracts';
import type { EventTriggerRow } from './event-trigger.store.js';

/** A message a listener received, as the run it starts needs it. */
export interface TriggerMessage {
  /**
   * The message's identity on its broker, stable across redeliveries (a JetStream stream and
   * sequence, an AMQP message id, ...): the run's job id is derived from it, so a redelivery
   * starts nothing. Absent where the broker never redelivers (core NATS).
   */
  readonly identity?: string;
  readonly payload: Uint8Array;
  /**
   * The runnable's arguments as the kind's Windmill listener makes them (the preprocessor's event
   * has them too); absent: `{payload}`, the bytes in base64 (NATS, AMQP, MQTT).
   */
  readonly args?: Readonly<Record<string, unknown>>;
  /** What the kind adds to the preprocessor's event beside `kind` and `payload` (Windmill's trigger info). */
  readonly info: Readonly<Record<string, unknown>>;
}

/** What a listener is given: its trigger, its connection, and where its messages go. */
export interface ListenerContext<Connection = unknown> {
  readonly trigger: EventTriggerRow;
  /** The connection's resource, read as the trigger's owner and checked against the kind's schema. */
  readonly connection: Connection;
  /**
   * Starts the message's run: resolves once the run is durably queued (or the filters dropped
   * the message), rejects when it could not be started. Acknowledge only after it resolved.
   */
  deliver(message: TriggerMessage): Promise<void>;
  /** The listener is connected and consuming (the trigger's state becomes `listening`). */
  listening(): void;
}

/** A listener that started: `ended` settles with the reason when the connection ends by itself. */
export interface RunningListener {
  readonly ended: Promise<Error>;
  /** Stops consuming and closes the connection; messages not acknowledged go back to the broker. */
  stop(): Promise<void>;
}

/** A kind of event trigger: how it connects and consumes. */
export interface EventListener {
  readonly kind: EventTriggerKind;
  /** Connects and starts consuming; rejects when it cannot (the supervisor retries with backoff). */
  start(context: ListenerContext): Promise<RunningListener>;
}

/** The listeners of every kind (a Nest multi-provider). */
export const EVENT_LISTENERS = Symbol('EVENT_LISTENERS');

/** A promise with its resolver, for `ended`. */
export function endSignal(): { ended: Promise<Error>; end: (reason: Error) => void } {
  let end!: (reason: Error) => void;
  const ended = new Promise<Error>((resolve) => (end = resolve));
  return { ended, end };
}

/** `error` as a message with every secret of the connection masked (a URL may carry a password). */
export function redacted(error: unknown, secrets: readonly (string | null | undefined)[]): string {
  let message = error instanceof Error ? error.message : String(error);
  for (const secret of secrets) {
    if (secret && secret.length >= 3) message = message.split(secret).join('***');
  }
  return message.slice(0, 2_000);
}
