import { STREAMS, workSubject, type ConsumerDefinition } from '@flowmesh/contracts';
import { Logger } from '@nestjs/common';
import { Server, type CustomTransportStrategy, type MessageHandler } from '@nestjs/microservices';
import type { MeshConnection } from '../connection/mesh-connection.js';
import { ensureConsumer, ensureStreams } from '../connection/ensure-streams.js';
import { ConsumerMetrics, type ObservedConsumer } from '../metrics/consumer.metrics.js';
import type { StreamStorageOptions } from '../connection/jetstream-config.js';
import { DeadLetterPublisher, type DeadLetterSource } from './dead-letter.publisher.js';
import { JetStreamListener } from './jetstream.listener.js';
import type { Listener } from './listener.js';
import { bindingOf, type EventBinding, type WorkBinding } from './mesh-handler.binding.js';
import { RequestListener } from './request.listener.js';

/** The mesh transport's id among the app's transports. */
export const MESH_TRANSPORT_ID = Symbol('flowmesh.mesh-transport');

export interface MeshTransportOptions {
  /** Service name: the queue group its replicas share, and the log context. */
  service: string;
  /** How long `close()` lets running handlers finish before handing their messages back (default 10 s). */
  shutdownGraceMs?: number;
  /** Create or update the streams in `STREAMS` before listening (default true). */
  ensureStreams?: boolean;
  /** Storage and size cap of the streams it creates (default: file, the contract's limits). */
  streams?: StreamStorageOptions;
  /** Drain the connection once closed (default true; pass false when something else owns it). */
  drainOnClose?: boolean;
}

/**
 * The Nest transport strategy of the mesh: `app.connectMicroservice({ strategy: new
 * MeshTransport(conn, { service }) })`. It serves the handlers declared with `@HandleRequest`,
 * `@HandleEvent` and `@HandleWork`: request/reply on core NATS, events and work from durable
 * JetStream pull consumers it creates or updates from the decorators.
 */
export class MeshTransport extends Server implements CustomTransportStrategy {
  // Its own id, so handlers bound to another transport (`@GrpcMethod`) are not handed to it.
  override transportId: symbol = MESH_TRANSPORT_ID;
  // Event and work outcomes are awaited here (to ack or nak), so Nest need not report them itself.
  override readonly propagatesEventHandlerErrors = true;
  private readonly log: Logger;
  private listeners: Listener[] = [];
  private consumerMetrics?: ConsumerMetrics;
  private closing?: Promise<void>;
  /** What it needs in JetStream, to make again on a server that lost it, and who consumes it. */
  private consumers: Array<{
    definition: ConsumerDefinition;
    deliverPolicy: 'all' | 'new';
    listener: JetStreamListener;
  }> = [];
  private stopRestoring?: () => void;

  constructor(
    private readonly conn: MeshConnection,
    private readonly options: MeshTransportOptions,
  ) {
    super();
    this.log = new Logger(`MeshTransport:${options.service}`);
  }

  listen(callback: (error?: unknown) => void): void {
    this.start().then(
      () => callback(),
      (error: unknown) => callback(error),
    );
  }

  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  on(): never {
    throw new Error('MeshTransport has no events to subscribe to; watch MeshConnection.nc.status() instead');
  }

  unwrap<T>(): T {
    return this.conn.nc as T;
  }

  private async start(): Promise<void> {
    if (this.options.ensureStreams ?? true) await ensureStreams(this.conn, this.options.streams);
    const deadLetters = new DeadLetterPublisher(this.conn);
    const listeners: Listener[] = [];
    const observed: ObservedConsumer[] = [];
    for (const [pattern, handler] of this.messageHandlers) {
      const binding = bindingOf(handler.extras);
      if (!binding) {
        throw new Error(
          `handler for "${pattern}" is not a mesh handler: use @HandleRequest, @HandleEvent or @HandleWork`,
        );
      }
      if (binding.kind === 'request') {
        listeners.push(new RequestListener(this.conn, binding, handler, this.options.service, this.log));
        continue;
      }
      for (const [i, definition] of consumerDefinitions(binding).entries()) {
        const listener = await this.jetStreamListener(binding, definition, handler, deadLetters);
        listeners.push(listener);
        this.consumers.push({ definition, deliverPolicy: deliverPolicyOf(binding), listener });
        const tag = binding.kind === 'work' ? binding.tags[i] : undefined;
        observed.push({ stream: definition.stream, durable: definition.durable, ...(tag ? { tag } : {}) });
      }
    }
    this.consumerMetrics = new ConsumerMetrics(this.conn, observed);
    for (const listener of listeners) {
      await listener.start();
      this.listeners.push(listener);
    }
    this.stopRestoring = this.conn.outages.onReconnect(() => this.restore());
    this.log.log(`listening: ${listeners.map((l) => l.name).join(', ') || 'no handlers'}`);
  }

  /**
   * After a reconnect: a server that lost its JetStream storage (memory storage, a new server)
   * has none of our streams and consumers. Make them again, and have the listeners whose consumer
   * was made again consume it anew (the client would only look for the old one, every 30 s).
   * Retried until it holds: JetStream may still be recovering its streams.
   */
  private async restore(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      if (this.closing || this.conn.nc.isClosed()) return;
      try {
        const made: string[] = [];
        if (this.options.ensureStreams ?? true) {
          const streams = await ensureStreams(this.conn, this.options.streams);
          made.push(...streams.filter((r) => r.action !== 'unchanged').map((r) => r.name));
        }
        for (const { definition, deliverPolicy, listener } of this.consumers) {
          const result = await ensureConsumer(this.conn, definition, { deliverPolicy });
          if (result.action === 'unchanged') continue;
          made.push(result.name);
          listener.consumeAgain();
        }
        if (made.length > 0)
          this.log.warn(`the NATS server had lost them in the outage; made again: ${made.join(', ')}`);
        return;
      } catch (error) {
        if (attempt === 3) {
          this.log.warn(
            `cannot restore streams and consumers yet: ${error instanceof Error ? error.message : String(error)}; retrying`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, Math.min(5_000, 250 * attempt)));
      }
    }
  }

  private async jetStreamListener(
    binding: EventBinding | WorkBinding,
    definition: ConsumerDefinition,
    handler: MessageHandler,
    deadLetters: DeadLetterPublisher,
  ): Promise<JetStreamListener> {
    await ensureConsumer(this.conn, definition, { deliverPolicy: deliverPolicyOf(binding) });
    const source: DeadLetterSource = {
      streamBase: definition.stream,
      durableBase: definition.durable,
      stream: this.conn.space.streamName(definition.stream),
      durable: this.conn.space.durableName(definition.durable),
    };
    return new JetStreamListener(this.conn, binding, source, handler, deadLetters, this.log);
  }

  private async shutDown(): Promise<void> {
    this.stopRestoring?.();
    this.consumerMetrics?.close();
    await Promise.all(this.listeners.map((listener) => listener.stopTaking()));
    const graceMs = this.options.shutdownGraceMs ?? 10_000;
    const finished = await Promise.all(this.listeners.map((listener) => listener.waitForInflight(graceMs)));
    this.listeners.forEach((listener, i) => {
      if (finished[i]) return;
      this.log.warn(
        `${listener.name}: handlers still running after ${graceMs} ms; handing their messages back`,
      );
      listener.abandonInflight();
    });
    this.listeners = [];
    if (this.options.drainOnClose ?? true) await this.conn.drain();
  }
}

function deliverPolicyOf(binding: EventBinding | WorkBinding): 'all' | 'new' {
  return binding.kind === 'event' ? binding.deliverPolicy : 'all';
}

/** The durable consumers a handler needs: one per event subscription, one per work tag. */
export function consumerDefinitions(binding: EventBinding | WorkBinding): ConsumerDefinition[] {
  const policy = {
    ackWaitMs: binding.ackWaitMs,
    maxDeliver: binding.maxDeliver,
    backoffMs: binding.backoffMs,
    maxAckPending: binding.maxAckPending,
  };
  if (binding.kind === 'event') {
    return [
      {
        stream: STREAMS.events.name,
        durable: binding.durable,
        filterSubject: binding.contract.subject,
        ...policy,
      },
    ];
  }
  return binding.tags.map((tag) => ({
    stream: STREAMS.work.name,
    durable: `${binding.durable}-${tag}`,
    filterSubject: workSubject(tag, binding.contract.workKind),
    ...policy,
  }));
}
