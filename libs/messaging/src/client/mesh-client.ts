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
import { Logger } from '@nestjs/common';
import type { MsgHdrs } from '@nats-io/nats-core';
import type { z } from 'zod';
import { encodeJson } from '../codec/json.codec.js';
import { decodeEnvelope } from '../codec/reply-envelope.codec.js';
import type { MeshConnection } from '../connection/mesh-connection.js';
import { traceSend } from '../tracing/message-tracing.js';
import { ATTR_MESSAGING_MESSAGE_ID } from '@flowmesh/telemetry';
import { mapPublishError, mapRequestError, noReplyCame } from './request-error.mapper.js';
import {
  backoffMs,
  DEFAULT_RETRY_FOR_MS,
  isNoReply,
  markNoReply,
  pause,
  SafeRetryPolicy,
  type RetryLog,
} from './safe-retry.policy.js';

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

export interface MeshClientOptions {
  /**
   * How long a request whose contract is `retry: 'safe'` is sent again after no reply came (no
   * service answers, or none in time), from its first attempt: 30 s by default, long enough for
   * a service's restart; 0 never sends again. A request's own `retryForMs` and `signal` bound it
   * further. The last attempt may still wait its full timeout.
   */
  retryForMs?: number;
  /** Where an outage of a service is said, once (a Nest `Logger` named MeshClient by default). */
  log?: RetryLog;
}

/**
 * The sending side of the mesh: requests validated with their contract both ways, events and
 * work published to JetStream after validation. Errors are always `MeshError`s. A request that
 * is safe to repeat rides out a service restart: see `MeshClientOptions.retryForMs`.
 */
export class MeshClient implements RequestTransport {
  private retry: SafeRetryPolicy;

  constructor(
    private readonly conn: MeshConnection,
    options: MeshClientOptions = {},
  ) {
    this.retry = new SafeRetryPolicy(
      options.retryForMs ?? DEFAULT_RETRY_FOR_MS,
      options.log ?? new Logger('MeshClient'),
    );
  }

  /**
   * Sets the window of requests safe to repeat from the service's configuration
   * (`FLOWMESH_REQUEST_RETRY_MS`), once at start, before any request is sent.
   */
  setRetryWindow(retryForMs: number): void {
    this.retry = new SafeRetryPolicy(retryForMs, this.retry.log);
  }

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
    // The caller's own payload goes on the wire, not zod's output: the answering side parses
    // the same schema's input shape.
    const body = encodeJson(payload);
    const retryForMs = contract.retry === 'safe' ? (options.retryForMs ?? this.retry.retryForMs) : 0;
    const firstAt = Date.now();
    for (let attempt = 1; ; attempt++) {
      try {
        const reply = await this.send(contract, body, options);
        this.retry.answered(contract.subject);
        return reply;
      } catch (error) {
        // Sent again only when no reply came, within the request's window, and while its caller waits.
        const pauseMs = backoffMs(attempt);
        if (!isNoReply(error) || Date.now() + pauseMs - firstAt > retryForMs || options.signal?.aborted)
          throw error;
        this.retry.retrying(contract.subject, error as MeshError);
        await pause(pauseMs, options.signal, abandonedError);
      }
    }
  }

  /** One attempt: the reply as its contract parses it, or the `MeshError` it failed with. */
  private send<Req extends z.ZodType, Res extends z.ZodType>(
    contract: RequestContract<Req, Res>,
    body: Uint8Array,
    options: RequestOptions,
  ): Promise<z.output<Res>> {
    const subject = this.conn.space.subject(contract.subject);
    const timeoutMs = options.timeoutMs ?? contract.timeoutMs;
    return traceSend(subject, { operation: 'request' }, async (headers) => {
      let reply;
      try {
        reply = await abandonable(
          this.conn.nc.request(subject, body, { timeout: timeoutMs, headers }),
          options.signal,
        );
      } catch (error) {
        if (error instanceof MeshError) throw error;
        const mapped = mapRequestError(error, subject, timeoutMs);
        throw noReplyCame(error) ? markNoReply(mapped) : mapped;
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
  if (signal.aborted) {
    reply.catch(() => undefined);
    return Promise.reject(abandonedError());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abandonedError());
    signal.addEventListener('abort', onAbort, { once: true });
    reply.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function abandonedError(): MeshError {
  return new MeshError('UNAVAILABLE', 'the request was abandoned: its caller stopped waiting', {
    abandoned: true,
  });
}
