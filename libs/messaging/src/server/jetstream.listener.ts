import { loneSurrogateError, validationError, type ErrorEnvelope } from '@flowmesh/contracts';
import { setTimeout as delay } from 'node:timers/promises';
import type { ConsumerMessages, JsMsg } from '@nats-io/jetstream';
import type { LoggerService } from '@nestjs/common';
import type { MessageHandler } from '@nestjs/microservices';
import {
  ATTR_MESSAGING_CONSUMER_GROUP_NAME,
  ATTR_MESSAGING_NATS_DELIVERY_COUNT,
  ATTR_MESSAGING_NATS_STREAM_NAME,
  ATTR_MESSAGING_NATS_STREAM_SEQUENCE,
} from '@flowmesh/telemetry';
import { decodeJson } from '../codec/json.codec.js';
import type { MeshConnection } from '../connection/mesh-connection.js';
import { traceProcess } from '../tracing/message-tracing.js';
import type { DeadLetterPublisher, DeadLetterSource } from './dead-letter.publisher.js';
import { exhaustedReason, settleFailure } from './delivery-settlement.js';
import { HandBackError } from './hand-back.error.js';
import { InflightTracker } from './inflight.tracker.js';
import { invokeHandler } from './invoke-handler.js';
import type { Listener } from './listener.js';
import { MeshContext } from './mesh-context.js';
import type { EventBinding, WorkBinding } from './mesh-handler.binding.js';

const RESTART_DELAY_MS = 1_000;

interface Delivery {
  message: JsMsg;
  /** True while the handler runs: the heartbeat ticker keeps such deliveries alive. */
  running: boolean;
  /** Set once the delivery was acked, nak'ed or terminated; later settlements are dropped. */
  settled: boolean;
}

/**
 * Feeds one durable pull consumer to a handler. At most `concurrency` handlers run at once and
 * the consumer never holds more than that many undelivered messages for this instance, so a busy
 * instance does not sit on work another could take. While a handler runs, `working()` keeps the
 * delivery alive; success acks, failure naks with backoff, and a permanent failure or the last
 * allowed delivery goes to the dead-letter stream and is terminated.
 */
export class JetStreamListener implements Listener {
  readonly name: string;
  private messages?: ConsumerMessages;
  private stopping = false;
  /** Set by consumeAgain(): the iterator ends on purpose, to consume the consumer made again. */
  private renewing = false;
  private loopDone?: Promise<void>;
  /** Resolves when the listener stops taking work: unparks a loop waiting for a free slot. */
  private readonly stopped: Promise<void>;
  private signalStopped!: () => void;
  /** Tells running handlers the listener stopped taking work (`MeshContext.stopping`). */
  private readonly stoppingSignal = new AbortController();
  private readonly inflight = new InflightTracker<Delivery>();
  private readonly heartbeatMs: number;
  /** One timer per listener, not one per message: it sends `working()` for every running handler. */
  private heartbeat?: NodeJS.Timeout;

  constructor(
    private readonly conn: MeshConnection,
    private readonly binding: EventBinding | WorkBinding,
    private readonly source: DeadLetterSource,
    private readonly handler: MessageHandler,
    private readonly deadLetters: DeadLetterPublisher,
    private readonly logger: LoggerService,
  ) {
    this.name = `${source.stream}/${source.durable}`;
    this.heartbeatMs = Math.max(Math.floor(binding.ackWaitMs / 3), 100);
    this.stopped = new Promise((resolve) => {
      this.signalStopped = resolve;
    });
  }

  async start(): Promise<void> {
    const first = await this.consume();
    this.heartbeat = setInterval(() => this.beat(), this.heartbeatMs);
    this.heartbeat.unref();
    this.loopDone = this.supervise(first);
  }

  private async consume(): Promise<ConsumerMessages> {
    const consumer = await this.conn.js.consumers.get(this.source.stream, this.source.durable);
    this.messages = await consumer.consume({ max_messages: this.binding.concurrency });
    return this.messages;
  }

  /**
   * The consumer was made again (the server lost it): the client would only look for the old one,
   * so end the current iteration (what it holds is still handed to the handler) and consume anew.
   */
  consumeAgain(): void {
    if (this.stopping) return;
    this.renewing = true;
    this.messages?.stop();
  }

  /**
   * The client rides out reconnects and missed heartbeats itself; should the iterator still end
   * (consumer deleted, permissions), consume again rather than silently stop taking work.
   */
  private async supervise(first: ConsumerMessages): Promise<void> {
    let messages: ConsumerMessages | undefined = first;
    while (!this.stopping) {
      if (messages) await this.run(messages);
      if (this.stopping || this.conn.nc.isClosed()) return;
      const renewing = this.renewing;
      this.renewing = false;
      if (!renewing) {
        this.logger.error(
          `consumer ${this.name} stopped delivering; consuming again in ${RESTART_DELAY_MS} ms`,
        );
        await Promise.race([delay(RESTART_DELAY_MS, undefined, { ref: false }), this.stopped]);
        if (this.stopping) return;
      }
      messages = await this.consume().catch((error: unknown) => {
        this.logger.error(
          `cannot consume ${this.name}: ${error instanceof Error ? error.message : String(error)}`,
        );
        return undefined;
      });
    }
  }

  async stopTaking(): Promise<void> {
    this.stopping = true;
    this.stoppingSignal.abort();
    // stop() unsubscribes at once but ends the iterator through its queue, so the loop must run
    // to see it: unpark it even while every slot is busy. Messages already buffered get nak'ed.
    this.messages?.stop();
    this.signalStopped();
    // Running handlers still need their heartbeats until they finish or are abandoned.
    await this.loopDone;
  }

  async waitForInflight(timeoutMs: number): Promise<boolean> {
    const finished = await this.inflight.waitForAll(timeoutMs);
    if (finished) clearInterval(this.heartbeat);
    return finished;
  }

  abandonInflight(): void {
    for (const delivery of this.inflight.entries()) {
      // Hand the message back now rather than after ack_wait; the handler's late outcome is dropped.
      this.settle(delivery, (message) => message.nak());
    }
    clearInterval(this.heartbeat);
  }

  private async run(messages: ConsumerMessages): Promise<void> {
    try {
      for await (const message of messages) {
        const delivery: Delivery = { message, running: false, settled: false };
        if (this.stopping) {
          this.settle(delivery, (m) => m.nak());
          continue;
        }
        this.inflight.track(this.process(delivery), delivery);
        // Not asking for the next message until a slot is free is what bounds the prefetch.
        await Promise.race([this.inflight.waitBelow(this.binding.concurrency), this.stopped]);
      }
    } catch (error) {
      if (!this.stopping) {
        this.logger.error(
          `consumer ${this.name} failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
  }

  private async process(delivery: Delivery): Promise<void> {
    const { message } = delivery;
    const deliveryCount = message.info.deliveryCount;
    const attributes = () => ({
      [ATTR_MESSAGING_CONSUMER_GROUP_NAME]: this.source.durable,
      [ATTR_MESSAGING_NATS_STREAM_NAME]: this.source.stream,
      [ATTR_MESSAGING_NATS_STREAM_SEQUENCE]: message.seq,
      [ATTR_MESSAGING_NATS_DELIVERY_COUNT]: deliveryCount,
    });
    try {
      await traceProcess(message.subject, message.headers, { operation: this.binding.kind, attributes }, () =>
        this.handle(delivery, deliveryCount),
      );
    } catch {
      // The handler's failure was settled inside the span; the span records it.
    } finally {
      delivery.running = false;
    }
  }

  private beat(): void {
    for (const delivery of this.inflight.entries()) {
      if (delivery.running && !delivery.settled) this.settleSafely(() => delivery.message.working());
    }
  }

  private async handle(delivery: Delivery, deliveryCount: number): Promise<void> {
    const { message } = delivery;
    if (deliveryCount > this.binding.maxDeliver) {
      return this.deadLetter(delivery, exhaustedReason(deliveryCount, this.binding.maxDeliver));
    }
    const json = decodeJson(message.data);
    if (!json.ok) {
      return this.deadLetter(delivery, {
        code: 'VALIDATION_FAILED',
        message: `the message on ${message.subject} is not JSON`,
      });
    }
    const surrogate = loneSurrogateError(`message on ${message.subject}`, json.value);
    if (surrogate) return this.deadLetter(delivery, surrogate.toEnvelope());
    const checked = this.binding.contract.payload.safeParse(json.value);
    if (!checked.success) {
      return this.deadLetter(
        delivery,
        validationError(`message on ${message.subject}`, checked.error).toEnvelope(),
      );
    }

    delivery.running = true;
    const context = new MeshContext([
      {
        subject: message.subject,
        headers: message.headers,
        jetstream: {
          message,
          stream: this.source.stream,
          durable: this.source.durable,
          deliveryCount,
          streamSequence: message.seq,
          stopping: this.stoppingSignal.signal,
        },
      },
    ]);
    try {
      await invokeHandler(this.handler, checked.data, context);
    } catch (error) {
      delivery.running = false;
      if (error instanceof HandBackError) {
        // Not a failure: another instance takes it at once, from what the handler committed.
        this.settle(delivery, (m) => m.nak());
        return;
      }
      const settlement = settleFailure(error, deliveryCount, this.binding);
      if (settlement.kind === 'retry') {
        this.settle(delivery, (m) => m.nak(settlement.delayMs));
      } else {
        await this.deadLetter(delivery, settlement.reason);
      }
      throw error;
    }
    delivery.running = false;
    await this.acknowledge(delivery);
  }

  private async acknowledge(delivery: Delivery): Promise<void> {
    if (delivery.settled) return;
    delivery.settled = true;
    if (this.binding.kind === 'event') {
      this.settleSafely(() => delivery.message.ack());
      return;
    }
    // A job must not run twice because an ack got lost: wait for the server to confirm it.
    const confirmed = await delivery.message.ackAck().catch(() => false);
    if (!confirmed)
      this.logger.warn(`ack of ${this.name} #${delivery.message.seq} not confirmed; it may be redelivered`);
  }

  private async deadLetter(delivery: Delivery, reason: ErrorEnvelope): Promise<void> {
    if (delivery.settled) return;
    try {
      await this.deadLetters.publish(delivery.message, this.source, reason);
    } catch (error) {
      // Without a dead letter the message must not be dropped: let it come back and try again.
      this.logger.error(
        `cannot dead-letter ${this.name} #${delivery.message.seq}: ${error instanceof Error ? error.message : String(error)}`,
      );
      this.settle(delivery, (m) => m.nak(this.binding.backoffMs.at(-1) ?? 0));
      return;
    }
    this.logger.warn(`dead-lettered ${this.name} #${delivery.message.seq}: ${reason.code}`);
    // Plain term(): NATS 2.9 does not understand a term reason.
    this.settle(delivery, (m) => m.term());
  }

  private settle(delivery: Delivery, action: (message: JsMsg) => void): void {
    if (delivery.settled) return;
    delivery.settled = true;
    delivery.running = false;
    this.settleSafely(() => action(delivery.message));
  }

  /** Acks go out on the connection; when it is gone the server redelivers anyway. */
  private settleSafely(action: () => void): void {
    try {
      action();
    } catch {
      // connection closed: nothing to do
    }
  }
}
