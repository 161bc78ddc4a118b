import { deadLetterSubject, type DeadLetter, type ErrorEnvelope } from '@flowmesh/contracts';
import type { JsMsg } from '@nats-io/jetstream';
import type { MsgHdrs } from '@nats-io/nats-core';
import { decodeText, encodeJson } from '../codec/json.codec.js';
import type { MeshConnection } from '../connection/mesh-connection.js';
import { traceSend } from '../tracing/message-tracing.js';

export interface DeadLetterSource {
  /** Base names (as in contracts), for the dead-letter subject. */
  streamBase: string;
  durableBase: string;
  /** Wire names, recorded in the dead letter. */
  stream: string;
  durable: string;
}

/**
 * Records a message the mesh gave up on in the dead-letter stream, with why. The publish is
 * deduplicated on the original stream sequence, so a worker that dies between recording and
 * terminating the delivery does not record it twice.
 */
export class DeadLetterPublisher {
  constructor(private readonly conn: MeshConnection) {}

  async publish(message: JsMsg, source: DeadLetterSource, reason: ErrorEnvelope): Promise<void> {
    const subject = this.conn.space.subject(deadLetterSubject(source.streamBase, source.durableBase));
    const record: DeadLetter = {
      reason,
      stream: source.stream,
      durable: source.durable,
      subject: message.subject,
      streamSequence: message.seq,
      deliveryCount: message.info.deliveryCount,
      headers: headersRecord(message.headers),
      payload: decodeText(message.data),
      publishedAt: message.time.toISOString(),
      deadLetteredAt: new Date().toISOString(),
    };
    await traceSend(subject, { operation: 'dead-letter' }, (headers) =>
      this.conn.js.publish(subject, encodeJson(record), {
        msgID: `${source.stream}:${message.seq}`,
        ...(headers ? { headers } : {}),
      }),
    );
  }
}

function headersRecord(headers: MsgHdrs | undefined): Record<string, string[]> {
  const record: Record<string, string[]> = {};
  if (!headers) return record;
  for (const [key, values] of headers) record[key] = [...values];
  return record;
}
