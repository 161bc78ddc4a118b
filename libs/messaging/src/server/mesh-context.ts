import type { JsMsg } from '@nats-io/jetstream';
import type { MsgHdrs } from '@nats-io/nats-core';
import { BaseRpcContext } from '@nestjs/microservices';

export interface MeshMessageInfo {
  /** Wire subject the message arrived on. */
  subject: string;
  headers: MsgHdrs | undefined;
  /** JetStream deliveries only. */
  jetstream?: {
    message: JsMsg;
    stream: string;
    durable: string;
    deliveryCount: number;
    streamSequence: number;
    /** Aborted when the listener stops taking messages: the process is stopping. */
    stopping: AbortSignal;
  };
}

/**
 * What `@Ctx()` gives a mesh handler: the subject, headers and, for events and work, the
 * delivery count (a handler may treat a redelivery differently) and the `Nats-Msg-Id`.
 * Acknowledgement stays with the transport.
 */
export class MeshContext extends BaseRpcContext<[MeshMessageInfo]> {
  get info(): MeshMessageInfo {
    return this.args[0];
  }

  getSubject(): string {
    return this.info.subject;
  }

  getHeaders(): MsgHdrs | undefined {
    return this.info.headers;
  }

  /** 1 for a first delivery and for requests. */
  getDeliveryCount(): number {
    return this.info.jetstream?.deliveryCount ?? 1;
  }

  getMessageId(): string | undefined {
    return this.info.headers?.get('Nats-Msg-Id') || undefined;
  }

  /**
   * Aborted once this process stops taking work (JetStream deliveries; never for requests): a
   * long handler may then finish what it is doing and throw `HandBackError`, so the message goes
   * to another instance at once.
   */
  get stopping(): AbortSignal | undefined {
    return this.info.jetstream?.stopping;
  }
}
