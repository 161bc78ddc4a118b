import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { splitText } from '../recording-server.js';
import type {
  BedrockFakeContentBlock,
  BedrockFakeStopReason,
  BedrockFakeTurn,
  BedrockFakeUsage,
} from './bedrock-fake.types.js';

type Json = Record<string, unknown>;

export interface BedrockEvent {
  type: string;
  body: Json;
}

const codec = new EventStreamCodec(toUtf8, fromUtf8);

function fullUsage(turn: BedrockFakeTurn): Json {
  const usage: Required<BedrockFakeUsage> = {
    inputTokens: turn.usage?.inputTokens ?? 10,
    outputTokens: turn.usage?.outputTokens ?? 5,
    cacheReadInputTokens: turn.usage?.cacheReadInputTokens ?? 0,
    cacheWriteInputTokens: turn.usage?.cacheWriteInputTokens ?? 0,
  };
  return {
    ...usage,
    totalTokens:
      usage.inputTokens + usage.outputTokens + usage.cacheReadInputTokens + usage.cacheWriteInputTokens,
  };
}

function stopReason(turn: BedrockFakeTurn): BedrockFakeStopReason {
  return turn.stopReason ?? (turn.content.some((block) => 'toolUse' in block) ? 'tool_use' : 'end_turn');
}

/** The `POST /model/{id}/converse` body. */
export function renderConverseResponse(turn: BedrockFakeTurn): Json {
  return {
    output: { message: { role: 'assistant', content: turn.content } },
    stopReason: stopReason(turn),
    usage: fullUsage(turn),
    metrics: { latencyMs: 42 },
  };
}

function blockEvents(block: BedrockFakeContentBlock, index: number, size: number): BedrockEvent[] {
  const delta = (value: Json): BedrockEvent => ({
    type: 'contentBlockDelta',
    body: { delta: value, contentBlockIndex: index },
  });
  if ('text' in block) return splitText(block.text, size).map((text) => delta({ text }));
  if ('toolUse' in block) {
    // Only tool-use blocks open with contentBlockStart; text and reasoning start with a delta.
    return [
      {
        type: 'contentBlockStart',
        body: {
          start: { toolUse: { toolUseId: block.toolUse.toolUseId, name: block.toolUse.name } },
          contentBlockIndex: index,
        },
      },
      ...splitText(JSON.stringify(block.toolUse.input), size).map((input) => delta({ toolUse: { input } })),
    ];
  }
  if ('redactedContent' in block.reasoningContent)
    return [delta({ reasoningContent: { redactedContent: block.reasoningContent.redactedContent } })];
  const { text, signature } = block.reasoningContent.reasoningText;
  return [
    ...splitText(text, size).map((piece) => delta({ reasoningContent: { text: piece } })),
    ...(signature ? [delta({ reasoningContent: { signature } })] : []),
  ];
}

/** The ConverseStream events in Bedrock's order (contentBlockStart only for tool use). */
export function renderConverseStream(turn: BedrockFakeTurn): BedrockEvent[] {
  const size = turn.deltaSize ?? 8;
  const events: BedrockEvent[] = [{ type: 'messageStart', body: { role: 'assistant' } }];
  turn.content.forEach((block, index) => {
    events.push(...blockEvents(block, index, size));
    events.push({ type: 'contentBlockStop', body: { contentBlockIndex: index } });
  });
  events.push({ type: 'messageStop', body: { stopReason: stopReason(turn) } });
  events.push({ type: 'metadata', body: { usage: fullUsage(turn), metrics: { latencyMs: 42 } } });
  return events;
}

let padding = 0;

/** One `vnd.amazon.eventstream` frame; real Bedrock pads payloads with a random `p`, so does the fake. */
export function encodeEventFrame(event: BedrockEvent): Uint8Array {
  const p = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJ'.slice(0, 1 + (++padding % 30));
  return codec.encode({
    headers: {
      ':event-type': { type: 'string', value: event.type },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'event' },
    },
    body: fromUtf8(JSON.stringify({ ...event.body, p })),
  });
}

export function encodeExceptionFrame(exceptionType: string, message: string): Uint8Array {
  return codec.encode({
    headers: {
      ':exception-type': { type: 'string', value: exceptionType },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'exception' },
    },
    body: fromUtf8(JSON.stringify({ message })),
  });
}
