import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { StreamFrame } from '../provider-adapter.js';

/**
 * SSE bytes to frames. `eventsource-parser` handles LF, CRLF (Gemini) and CR line ends, comments
 * (keepalives) and multi-line data; bytes are decoded as a stream so a UTF-8 character split
 * across chunks survives.
 */
export async function* sseFrames(body: AsyncIterable<Uint8Array>): AsyncIterable<StreamFrame> {
  const decoder = new TextDecoder();
  let pending: StreamFrame[] = [];
  const parser = createParser({
    onEvent: (message: EventSourceMessage) => {
      pending.push({
        data: message.data,
        ...(message.event !== undefined ? { event: message.event } : {}),
        ...(message.id !== undefined ? { id: message.id } : {}),
      });
    },
  });
  for await (const chunk of body) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    if (pending.length > 0) {
      const frames = pending;
      pending = [];
      yield* frames;
    }
  }
  parser.feed(decoder.decode());
  // A last event without its blank line still counts: some servers end the body right after it.
  parser.feed('\n\n');
  yield* pending;
}
