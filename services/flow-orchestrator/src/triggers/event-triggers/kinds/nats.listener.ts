import type { NatsResource, NewNatsTrigger } from '@flowmesh/contracts';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type JsMsg } from '@nats-io/jetstream';
import {
  connect,
  jwtAuthenticator,
  nkeyAuthenticator,
  type ConnectionOptions,
  type Msg,
  type MsgHdrs,
  type NatsConnection,
} from '@nats-io/transport-node';
import { Injectable, Logger } from '@nestjs/common';
import {
  endSignal,
  type EventListener,
  type ListenerContext,
  type RunningListener,
} from '../event-listener.js';
import { InFlight } from './in-flight.js';

/** Messages being started at once per trigger (JetStream's pull batch too). */
const IN_FLIGHT = 64;
/**
 * How long JetStream waits for an ack before it delivers a message again (ns): what a killed
 * listener had pulled comes back to its successor after this. A run that takes longer to start
 * is delivered twice, and the second start is a no-op (the job id).
 */
const ACK_WAIT_NS = 10_000_000_000;
/** A message whose run could not be started is delivered again after this long (ms). */
const NAK_DELAY_MS = 2_000;

/**
 * NATS triggers, Windmill's: core NATS on one subject (at most once, as core NATS is: a message
 * published while no listener is connected is gone, and none is delivered twice), or a JetStream
 * durable consumer on a stream (created on the stream when missing, filtered on `subjects`,
 * delivering what is published from its creation on). A JetStream message is acknowledged once
 * its run is durably queued, and its run's job id is derived from the stream (and its creation)
 * and the message's stream sequence: a message delivered again after a listener died starts
 * nothing twice. The event (Windmill's): `{kind: "nats", payload, servers, subject, length,
 * headers, status, description}`.
 */
@Injectable()
export class NatsEventListener implements EventListener {
  readonly kind = 'nats' as const;
  private readonly log = new Logger(NatsEventListener.name);

  async start(context: ListenerContext): Promise<RunningListener> {
    const resource = context.connection as NatsResource;
    const config = context.trigger.config as unknown as NewNatsTrigger;
    const nc = await connect(optionsOf(resource, context.trigger.path));
    const { ended, end } = endSignal();
    void nc.closed().then((error) => end(error ?? new Error('the NATS connection closed')));
    const inFlight = new InFlight(IN_FLIGHT);
    const servers = resource.servers;
    try {
      if (config.use_jetstream) await this.consumeStream(nc, config, servers, context, inFlight, end);
      else this.subscribe(nc, config.subjects[0], servers, context, inFlight, end);
    } catch (error) {
      await nc.close().catch(() => undefined);
      throw error;
    }
    context.listening();
    return {
      ended,
      stop: async () => {
        await nc.close().catch(() => undefined);
        await inFlight.settled();
      },
    };
  }

  private subscribe(
    nc: NatsConnection,
    subject: string,
    servers: readonly string[],
    context: ListenerContext,
    inFlight: InFlight,
    end: (reason: Error) => void,
  ): void {
    const subscription = nc.subscribe(subject);
    void (async () => {
      for await (const msg of subscription) {
        await inFlight.add(() =>
          context.deliver({ payload: msg.data, info: infoOf(msg, servers) }).catch((error: unknown) => {
            // Core NATS has no redelivery: the message is lost, as it is to any core subscriber.
            this.log.warn(
              `nats trigger ${context.trigger.path}: a message on ${msg.subject} started no run (${(error as Error).message})`,
            );
          }),
        );
      }
      end(new Error(`the subscription to ${subject} ended`));
    })().catch((error: unknown) => end(error as Error));
  }

  private async consumeStream(
    nc: NatsConnection,
    config: NewNatsTrigger,
    servers: readonly string[],
    context: ListenerContext,
    inFlight: InFlight,
    end: (reason: Error) => void,
  ): Promise<void> {
    const stream = config.stream_name!;
    const durable = config.consumer_name!;
    const jsm = await jetstreamManager(nc);
    // A stream deleted and created again counts from 1 again: its creation is part of a message's identity.
    const created = (await jsm.streams.info(stream)).created;
    try {
      await jsm.consumers.info(stream, durable);
    } catch (error) {
      if (!/consumer not found/i.test((error as Error).message)) throw error;
      await jsm.consumers.add(stream, {
        durable_name: durable,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.New,
        ack_wait: ACK_WAIT_NS,
        max_ack_pending: 1_000,
        ...(config.subjects.length === 1
          ? { filter_subject: config.subjects[0] }
          : { filter_subjects: config.subjects }),
      });
    }
    const consumer = await jetstream(nc).consumers.get(stream, durable);
    const messages = await consumer.consume({ max_messages: IN_FLIGHT });
    void (async () => {
      for await (const msg of messages) {
        await inFlight.add(() => this.deliverStored(msg, created, servers, context));
      }
      end(new Error(`the consumer ${durable} of stream ${stream} stopped`));
    })().catch((error: unknown) => end(error as Error));
  }

  private async deliverStored(
    msg: JsMsg,
    streamCreated: string,
    servers: readonly string[],
    context: ListenerContext,
  ): Promise<void> {
    try {
      await context.deliver({
        identity: `${msg.info.stream}:${streamCreated}:${msg.info.streamSequence}`,
        payload: msg.data,
        info: infoOf(msg, servers),
      });
    } catch (error) {
      this.log.warn(
        `nats trigger ${context.trigger.path}: message ${msg.info.streamSequence} started no run (${(error as Error).message}); delivered again in ${NAK_DELAY_MS} ms`,
      );
      msg.nak(NAK_DELAY_MS);
      return;
    }
    // Acknowledged only once its run is queued; a listener killed before this gets it delivered again.
    await msg.ackAck().catch(() => undefined);
  }
}

/** Windmill's NATS event beside `kind` and `payload`. */
function infoOf(msg: Msg | JsMsg, servers: readonly string[]): Record<string, unknown> {
  const headers = headersOf(msg.headers);
  const status = (msg as Msg).headers?.code;
  const description = (msg as Msg).headers?.description;
  return {
    servers: [...servers],
    subject: msg.subject,
    length: msg.data.length,
    ...(headers ? { headers } : {}),
    ...(status ? { status } : {}),
    ...(description ? { description } : {}),
  };
}

function headersOf(headers: MsgHdrs | undefined): Record<string, string[]> | undefined {
  if (!headers) return undefined;
  const out: Record<string, string[]> = {};
  for (const [name, values] of headers) out[name] = [...values];
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Connection options from Windmill's NATS resource; `nats://` is optional on each server. */
function optionsOf(resource: NatsResource, triggerPath: string): ConnectionOptions {
  const auth = resource.auth ?? { label: 'NO_AUTH' as const };
  const options: ConnectionOptions = {
    servers: resource.servers.map((server) => (server.includes('://') ? server : `nats://${server}`)),
    name: `flowmesh trigger ${triggerPath}`,
    // The supervisor reconnects with backoff and says so on the trigger; the client does not hide it.
    reconnect: false,
    timeout: 10_000,
    ...(resource.require_tls ? { tls: {} } : {}),
  };
  switch (auth.label) {
    case 'TOKEN':
      return { ...options, token: auth.token };
    case 'USER_PASSWORD':
      return { ...options, user: auth.user, pass: auth.password };
    case 'NKEY':
      return { ...options, authenticator: nkeyAuthenticator(new TextEncoder().encode(auth.seed)) };
    case 'JWT':
      return { ...options, authenticator: jwtAuthenticator(auth.jwt, new TextEncoder().encode(auth.seed)) };
    default:
      return options;
  }
}
