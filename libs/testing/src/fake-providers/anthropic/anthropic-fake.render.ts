import { splitText } from '../recording-server.js';
import type {
  AnthropicFakeContentBlock,
  AnthropicFakeStopReason,
  AnthropicFakeTurn,
  AnthropicFakeUsage,
} from './anthropic-fake.types.js';

export interface SseEvent {
  event: string;
  data: unknown;
}

let messageCounter = 0;

function fullUsage(turn: AnthropicFakeTurn): Required<AnthropicFakeUsage> {
  return {
    input_tokens: turn.usage?.input_tokens ?? 10,
    output_tokens: turn.usage?.output_tokens ?? 5,
    cache_creation_input_tokens: turn.usage?.cache_creation_input_tokens ?? 0,
    cache_read_input_tokens: turn.usage?.cache_read_input_tokens ?? 0,
  };
}

function stopReason(turn: AnthropicFakeTurn): AnthropicFakeStopReason {
  return (
    turn.stop_reason ?? (turn.content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn')
  );
}

function usageWire(usage: Required<AnthropicFakeUsage>, outputTokens: number): Record<string, unknown> {
  return {
    input_tokens: usage.input_tokens,
    cache_creation_input_tokens: usage.cache_creation_input_tokens,
    cache_read_input_tokens: usage.cache_read_input_tokens,
    cache_creation: {
      ephemeral_5m_input_tokens: usage.cache_creation_input_tokens,
      ephemeral_1h_input_tokens: 0,
    },
    output_tokens: outputTokens,
    service_tier: 'standard',
  };
}

function messageEnvelope(turn: AnthropicFakeTurn, requestedModel: string): Record<string, unknown> {
  return {
    id: turn.id ?? `msg_fake${String(++messageCounter).padStart(6, '0')}`,
    type: 'message',
    role: 'assistant',
    model: turn.model ?? requestedModel,
  };
}

/** The non-streaming `POST /v1/messages` body. */
export function renderAnthropicMessage(
  turn: AnthropicFakeTurn,
  requestedModel: string,
): Record<string, unknown> {
  const usage = fullUsage(turn);
  return {
    ...messageEnvelope(turn, requestedModel),
    content: turn.content,
    stop_reason: stopReason(turn),
    stop_sequence: null,
    usage: usageWire(usage, usage.output_tokens),
  };
}

function blockStart(block: AnthropicFakeContentBlock): Record<string, unknown> {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: '' };
    case 'thinking':
      return { type: 'thinking', thinking: '', signature: '' };
    case 'redacted_thinking':
      return block;
    case 'tool_use':
      return { type: 'tool_use', id: block.id, name: block.name, input: {} };
  }
}

function blockDeltas(block: AnthropicFakeContentBlock, size: number): Record<string, unknown>[] {
  switch (block.type) {
    case 'text':
      return splitText(block.text, size).map((text) => ({ type: 'text_delta', text }));
    case 'thinking':
      return [
        ...splitText(block.thinking, size).map((thinking) => ({ type: 'thinking_delta', thinking })),
        { type: 'signature_delta', signature: block.signature },
      ];
    case 'redacted_thinking':
      return [];
    case 'tool_use':
      // The API opens every tool input with an empty fragment; parsers must tolerate it.
      return ['', ...splitText(JSON.stringify(block.input), size)].map((partial_json) => ({
        type: 'input_json_delta',
        partial_json,
      }));
  }
}

/** The SSE events of a streamed turn, in the API's order (a `ping` after the first block opens). */
export function renderAnthropicStream(turn: AnthropicFakeTurn, requestedModel: string): SseEvent[] {
  const usage = fullUsage(turn);
  const size = turn.deltaSize ?? 8;
  const events: SseEvent[] = [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: {
          ...messageEnvelope(turn, requestedModel),
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: usageWire(usage, 1),
        },
      },
    },
  ];
  turn.content.forEach((block, index) => {
    events.push({
      event: 'content_block_start',
      data: { type: 'content_block_start', index, content_block: blockStart(block) },
    });
    if (index === 0) events.push({ event: 'ping', data: { type: 'ping' } });
    for (const delta of blockDeltas(block, size)) {
      events.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta } });
    }
    events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
  });
  events.push({
    event: 'message_delta',
    data: {
      type: 'message_delta',
      delta: { stop_reason: stopReason(turn), stop_sequence: null },
      // Cumulative, repeating the input side as the API does.
      usage: {
        input_tokens: usage.input_tokens,
        cache_creation_input_tokens: usage.cache_creation_input_tokens,
        cache_read_input_tokens: usage.cache_read_input_tokens,
        output_tokens: usage.output_tokens,
      },
    },
  });
  events.push({ event: 'message_stop', data: { type: 'message_stop' } });
  return events;
}

export function formatSseEvent({ event, data }: SseEvent): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

export function anthropicErrorBody(type: string, message: string): Record<string, unknown> {
  return {
    type: 'error',
    error: { type, message },
    request_id: `req_fake${String(++messageCounter).padStart(6, '0')}`,
  };
}
