import {
  createContractClient,
  MeshError,
  validationError,
  workSubject,
  type ContractClient,
  type EventContract,
  type RequestCallOptions,
  type RequestContract,
  type RequestTransport,
  type ServiceContract,
  type WorkContract,
} from '@flowmesh/contracts';
import type { PubAck } from '@nats-io/jetstream';
import type { MsgHdrs } from '@nats-io/nats-core';
import type { z } from 'zod';
import { encodeJson } from '../codec/json.codec.js';
import { decodeEnvelope } from '../codec/reply-envelope.codec.js';
import type { MeshConnection } from '../connection/mesh-connection.js';
import { traceSend } from '../tracing/message-tracing.js';
import { ATTR_MESSAGING_MESSAGE_ID } from '@flowmesh/telemetry';
import { mapPublishError, mapRequestError } from './request-error.mapper.js';

export type RequestOptions = RequestCallOptions;

export interface PublishOptions {
  /** `Nats-Msg-Id`: a second publish with the same id inside the stream's window is dropped. */
  msgId?: string;
  headers?: MsgHdrs;
}

export interface PublishResult {
  stream: string;
  seq: number;
  /** True when JetStream already held a message with this `msgId`. */
  duplicate: boolean;
}

/**
 * The sending side of the mesh: requests validated with their contract both ways, events and
 * work published to JetStream after validation. Errors are always `MeshError`s.
 */
export class MeshClient implements RequestTransport {
  constructor(private readonly conn: MeshConnection) {}

  /** A typed client for a service contract: `registry.getResource({...})`. */
  client<C extends ServiceContract>(contract: C): ContractClient<C> {
    return createContractClient(contract, this);
  }

  async request<Req extends z.ZodType, Res extends z.ZodType>(
    contract: RequestContract<Req, Res>,
    payload: z.input<Req>,
    options: RequestOptions = {},
  ): Promise<z.output<Res>> {
    const checked = contract.request.safeParse(payload);
    if (!checked.success) throw validationError(`request for ${contract.subject}`, checked.error);
    const subject = this.conn.space.subject(contract.subject);
    const timeoutMs = options.timeoutMs ?? contract.timeoutMs;
    // The caller's own payload goes on the wire, not zod's output: the answering side parses
    // the same schema's input shape.
    const body = encodeJson(payload);
    return traceSend(subject, { operation: 'request' }, async (headers) => {
      let reply;
      try {
        reply = await abandonable(
          this.conn.nc.request(subject, body, { timeout: timeoutMs, headers }),
          options.signal,
        );
      } catch (error) {
        if (error instanceof MeshError) throw error;
        throw mapRequestError(error, subject, timeoutMs);
      }
      const envelope = decodeEnvelope(reply.data);
      if (envelope === undefined) {
        throw new MeshError('INTERNAL', `the reply on ${subject} is not a mesh reply envelope`, { subject });
      }
      if (!envelope.ok) throw MeshError.fromEnvelope(envelope.error);
      const data = contract.reply.safeParse(envelope.data);
      if (!data.success) throw validationError(`reply on ${subject}`, data.error);
      return data.data;
    });
  }

  async publishEvent<Payload extends z.ZodType>(
    contract: EventContract<Payload>,
    payload: z.input<Payload>,
    options: PublishOptions = {},
  ): Promise<PublishResult> {
    const checked = contract.payload.safeParse(payload);
    if (!checked.success) throw validationError(`event ${contract.subject}`, checked.error);
    return this.publish(this.conn.space.subject(contract.subject), 'publish', payload, options);
  }

  async enqueueWork<Payload extends z.ZodType>(
    contract: WorkContract<Payload>,
    tag: string,
    payload: z.input<Payload>,
    options: PublishOptions = {},
  ): Promise<PublishResult> {
    const checked = contract.payload.safeParse(payload);
    if (!checked.success) throw validationError(`work ${contract.workKind}`, checked.error);
    return this.publish(
      this.conn.space.subject(workSubject(tag, contract.workKind)),
      'enqueue',
      payload,
      options,
    );
  }

  /**
   * A JetStream publish of an already validated payload on a wire subject. The outbox relay uses
   * it too, with the row's id as `msgId`.
   */
  async publish(
    subject: string,
    operation: string,
    payload: unknown,
    options: PublishOptions = {},
  ): Promise<PublishResult> {
    const body = encodeJson(payload);
    const attributes = options.msgId ? { [ATTR_MESSAGING_MESSAGE_ID]: options.msgId } : undefined;
    return traceSend(subject, { operation, attributes, headers: options.headers }, async (headers) => {
      let ack: PubAck;
      try {
        ack = await this.conn.js.publish(subject, body, {
          ...(options.msgId ? { msgID: options.msgId } : {}),
          ...(headers ? { headers } : {}),
        });
      } catch (error) {
        throw mapPublishError(error, subject);
      }
      return { stream: ack.stream, seq: ack.seq, duplicate: ack.duplicate };
    });
  }
}

/**
 * The reply, unless `signal` aborts first: then the request is abandoned at once (NATS has no way
 * to withdraw it; a late reply goes to an inbox nobody reads).
 */
function abandonable<T>(reply: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return reply;
  const abandoned = () =>
    new MeshError('UNAVAILABLE', 'the request was abandoned: its caller stopped waiting', {
      abandoned: true,
    });
  if (signal.aborted) {
    reply.catch(() => undefined);
    return Promise.reject(abandoned());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abandoned());
    signal.addEventListener('abort', onAbort, { once: true });
    reply.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
