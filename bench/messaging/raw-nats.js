import { EVENT_CONSUMER_DEFAULTS, STREAMS } from '@flowmesh/contracts';
import { consumerConfigFor, streamConfigFor } from '@flowmesh/messaging';

/**
 * The baseline: the same work done with the @nats-io clients directly. A JSON request answered
 * with a JSON reply; a JSON message published to a JetStream stream and handed to a durable pull
 * consumer with explicit acks.
 */
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function serveRawRequests(conn, subject, queue) {
  return conn.nc.subscribe(subject, {
    queue,
    callback: (error, msg) => {
      if (error) return;
      const request = JSON.parse(decoder.decode(msg.data));
      msg.respond(encoder.encode(JSON.stringify({ id: request.id, ok: true })));
    },
  });
}

export async function rawRequest(conn, subject, payload) {
  const reply = await conn.nc.request(subject, encoder.encode(JSON.stringify(payload)), { timeout: 5_000 });
  return JSON.parse(decoder.decode(reply.data));
}

/**
 * A stream and durable consumer configured exactly like the library's events stream and event
 * consumers (only the names differ), so the comparison measures client code, not server settings.
 */
export async function createRawStream(conn, base) {
  const stream = streamConfigFor(conn.space, { ...STREAMS.events, name: base, subjects: ['raw.>'] });
  await conn.jsm.streams.add(stream);
  await conn.jsm.consumers.add(
    stream.name,
    consumerConfigFor(conn.space, {
      stream: base,
      durable: 'raw',
      filterSubject: 'raw.ticked',
      ...EVENT_CONSUMER_DEFAULTS,
    }),
  );
  return { stream: stream.name, subject: conn.space.subject('raw.ticked') };
}

/** Consumes with the same prefetch as the library's event listener; `onMessage` sees the parsed body. */
export async function consumeRaw(conn, stream, maxMessages, onMessage) {
  const consumer = await conn.js.consumers.get(stream, conn.space.durableName('raw'));
  const messages = await consumer.consume({ max_messages: maxMessages });
  void (async () => {
    for await (const m of messages) {
      onMessage(JSON.parse(decoder.decode(m.data)));
      m.ack();
    }
  })();
  return messages;
}

export function rawPublish(conn, subject, payload) {
  return conn.js.publish(subject, encoder.encode(JSON.stringify(payload)));
}
