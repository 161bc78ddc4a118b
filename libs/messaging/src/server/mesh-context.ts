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
}
