import { loneSurrogateError, validationError } from '@flowmesh/contracts';
import type { Msg, Subscription } from '@nats-io/nats-core';
import type { LoggerService } from '@nestjs/common';
import type { Attributes } from '@opentelemetry/api';
import type { MessageHandler } from '@nestjs/microservices';
import { ATTR_MESSAGING_CONSUMER_GROUP_NAME } from '@flowmesh/telemetry';
import { decodeJson } from '../codec/json.codec.js';
import { encodeFailure, encodeSuccess } from '../codec/reply-envelope.codec.js';
import type { MeshConnection } from '../connection/mesh-connection.js';
import { toErrorEnvelope } from '../errors/error-envelope.mapper.js';
import { markActiveSpanFailed, traceProcess } from '../tracing/message-tracing.js';
import { InflightTracker } from './inflight.tracker.js';
import { invokeHandler } from './invoke-handler.js';
import type { Listener } from './listener.js';
import { MeshContext } from './mesh-context.js';
import type { RequestBinding } from './mesh-handler.binding.js';

interface InflightRequest {
  message: Msg;
  answered: boolean;
}

/**
 * Answers one request contract on core NATS. Every replica of a service joins the same queue
 * group, so each request reaches one of them. The payload is validated before the handler runs;
 * the reply is always an envelope, never a stack trace.
 */
export class RequestListener implements Listener {
  readonly name: string;
  private readonly subject: string;
  private subscription?: Subscription;
  private readonly inflight = new InflightTracker<InflightRequest>();
  private readonly spanAttributes: () => Attributes;

  constructor(
    private readonly conn: MeshConnection,
    private readonly binding: RequestBinding,
    private readonly handler: MessageHandler,
    private readonly queue: string,
    private readonly logger: LoggerService,
  ) {
    this.subject = conn.space.subject(binding.contract.subject);
    this.name = this.subject;
    const attributes = { [ATTR_MESSAGING_CONSUMER_GROUP_NAME]: queue };
    this.spanAttributes = () => attributes;
  }

  async start(): Promise<void> {
    this.subscription = this.conn.nc.subscribe(this.subject, {
      queue: this.queue,
      callback: (error, message) => {
        if (error) {
          this.logger.error(`subscription to ${this.subject} failed: ${error.message}`);
          return;
        }
        const entry: InflightRequest = { message, answered: false };
        this.inflight.track(this.handle(entry), entry);
      },
    });
    // Make sure the server has the subscription before the service calls itself ready.
    await this.conn.nc.flush();
  }

  stopTaking(): Promise<void> {
    this.subscription?.unsubscribe();
    return Promise.resolve();
  }

  waitForInflight(timeoutMs: number): Promise<boolean> {
    return this.inflight.waitForAll(timeoutMs);
  }

  abandonInflight(): void {
    for (const entry of this.inflight.entries()) {
      this.reply(
        entry,
        encodeFailure({ code: 'UNAVAILABLE', message: `${this.subject}: the service is shutting down` }),
      );
    }
  }

  private async handle(entry: InflightRequest): Promise<void> {
    const { message } = entry;
    try {
      const body = await traceProcess(
        message.subject,
        message.headers,
        { operation: 'request', attributes: this.spanAttributes },
        () => this.answer(message),
      );
      this.reply(entry, body);
    } catch (error) {
      // Only a failure to publish the reply lands here; the caller will see a timeout.
      this.logger.error(
        `cannot reply on ${this.subject}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  private async answer(message: Msg): Promise<Uint8Array> {
    const json = decodeJson(message.data);
    if (!json.ok) {
      return encodeFailure({
        code: 'VALIDATION_FAILED',
        message: `the request on ${this.subject} is not JSON`,
      });
    }
    const surrogate = loneSurrogateError(`request on ${this.subject}`, json.value);
    if (surrogate) return encodeFailure(surrogate.toEnvelope());
    const checked = this.binding.contract.request.safeParse(json.value);
    if (!checked.success) {
      return encodeFailure(validationError(`request on ${this.subject}`, checked.error).toEnvelope());
    }
    const context = new MeshContext([{ subject: message.subject, headers: message.headers }]);
    try {
      return encodeSuccess(await invokeHandler(this.handler, checked.data, context));
    } catch (error) {
      markActiveSpanFailed(error);
      const { envelope, expected } = toErrorEnvelope(error);
      if (!expected)
        this.logger.error(
          `handler for ${this.subject} failed`,
          error instanceof Error ? error.stack : String(error),
        );
      return encodeFailure(envelope);
    }
  }

  private reply(entry: InflightRequest, body: Uint8Array): void {
    if (entry.answered || !entry.message.reply || this.conn.nc.isClosed()) return;
    entry.answered = true;
    // An answer NATS would refuse is said to the caller at once, rather than left to time out.
    const maxPayload = this.conn.nc.info?.max_payload;
    if (maxPayload !== undefined && body.length > maxPayload) {
      body = encodeFailure({
        code: 'LIMIT_EXCEEDED',
        message: `the answer on ${this.subject} is ${body.length} bytes, over the NATS server's max_payload (${maxPayload}); read it over HTTP`,
      });
    }
    entry.message.respond(body);
  }
}
