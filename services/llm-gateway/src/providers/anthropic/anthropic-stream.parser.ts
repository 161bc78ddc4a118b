import type { ChatCall, ProviderStreamEvent, StreamFrame } from '../provider-adapter.js';
import { structuredOutputTool } from '../shared/structured-output-tool.js';
import { classifyAnthropicStreamError } from './anthropic-error.classifier.js';
import { anthropicFinishReason } from './anthropic-finish-reason.js';
import { normalizeAnthropicUsage } from './anthropic-usage.js';
import type { AnthropicStreamPayload, AnthropicUsage } from './anthropic-wire.types.js';

type OpenBlock =
  | { kind: 'text' | 'other' }
  | { kind: 'reasoning'; part: number }
  | { kind: 'tool'; index: number }
  /** The structured-output tool: its input streams as the answer's text. */
  | { kind: 'output' };

/**
 * Messages SSE events, normalized. Tool calls are numbered by a running count of tool_use blocks,
 * never by the content-block index (Portkey #1275): thinking and text blocks take indices too.
 * `message_delta.usage` is cumulative and may repeat the input side, so it is merged over what
 * `message_start` said and the latest value wins.
 */
export async function* parseAnthropicStream(
  frames: AsyncIterable<StreamFrame>,
  call: Pick<ChatCall, 'responseFormat' | 'tools'>,
): AsyncIterable<ProviderStreamEvent> {
  const outputTool = structuredOutputTool(call)?.name;
  const blocks = new Map<number, OpenBlock>();
  let toolCount = 0;
  let reasoningParts = 0;
  let usage: AnthropicUsage = {};
  let stopReason: string | null | undefined;
  let answeredThroughOutputTool = false;
  for await (const frame of frames) {
    let payload: AnthropicStreamPayload;
    try {
      payload = JSON.parse(frame.data) as AnthropicStreamPayload;
    } catch {
      yield {
        type: 'error',
        error: { class: 'provider_outage', message: 'Anthropic sent a stream event that is not JSON' },
      };
      return;
    }
    switch (payload.type) {
      case 'message_start': {
        const { id, model } = payload.message;
        yield { type: 'response', ...(id ? { id } : {}), ...(model ? { model } : {}) };
        usage = { ...payload.message.usage };
        const normalized = normalizeAnthropicUsage(usage);
        if (normalized) yield { type: 'usage', usage: normalized };
        break;
      }
      case 'content_block_start': {
        const block = payload.content_block;
        if (block.type === 'tool_use' && 'name' in block) {
          if (block.name === outputTool) {
            blocks.set(payload.index, { kind: 'output' });
            answeredThroughOutputTool = true;
          } else {
            const index = toolCount++;
            blocks.set(payload.index, { kind: 'tool', index });
            yield { type: 'tool_call_start', index, id: block.id, name: block.name };
          }
        } else if (block.type === 'thinking') {
          blocks.set(payload.index, { kind: 'reasoning', part: reasoningParts++ });
        } else if (block.type === 'redacted_thinking' && 'data' in block) {
          const part = reasoningParts++;
          blocks.set(payload.index, { kind: 'reasoning', part });
          yield { type: 'reasoning', text: '', redacted: block.data, part };
        } else if (block.type === 'text' && 'text' in block) {
          blocks.set(payload.index, { kind: 'text' });
          if (block.text) yield { type: 'text', text: block.text };
        } else blocks.set(payload.index, { kind: 'other' });
        break;
      }
      case 'content_block_delta': {
        const block = blocks.get(payload.index);
        const delta = payload.delta;
        if (delta.type === 'text_delta' && 'text' in delta) yield { type: 'text', text: delta.text };
        else if (delta.type === 'thinking_delta' && 'thinking' in delta && block?.kind === 'reasoning') {
          yield { type: 'reasoning', text: delta.thinking, part: block.part };
        } else if (delta.type === 'signature_delta' && 'signature' in delta && block?.kind === 'reasoning') {
          yield { type: 'reasoning', text: '', signature: delta.signature, part: block.part };
        } else if (
          delta.type === 'input_json_delta' &&
          'partial_json' in delta &&
          delta.partial_json !== ''
        ) {
          if (block?.kind === 'tool')
            yield { type: 'tool_call_delta', index: block.index, arguments: delta.partial_json };
          else if (block?.kind === 'output') yield { type: 'text', text: delta.partial_json };
        }
        break;
      }
      case 'content_block_stop': {
        const block = blocks.get(payload.index);
        if (block?.kind === 'tool') yield { type: 'tool_call_end', index: block.index };
        break;
      }
      case 'message_delta': {
        if (payload.delta.stop_reason) stopReason = payload.delta.stop_reason;
        if (payload.usage) {
          const latest = Object.fromEntries(
            Object.entries(payload.usage).filter(([, value]) => value !== null && value !== undefined),
          );
          usage = { ...usage, ...latest };
          const normalized = normalizeAnthropicUsage(usage);
          if (normalized) yield { type: 'usage', usage: normalized };
        }
        break;
      }
      case 'message_stop':
        yield {
          type: 'finish',
          reason: anthropicFinishReason(stopReason, answeredThroughOutputTool && toolCount === 0),
          ...(stopReason ? { providerReason: stopReason } : {}),
        };
        return;
      case 'error':
        yield { type: 'error', error: classifyAnthropicStreamError(payload.error) };
        return;
      default:
        // ping, and event types added after this was written
        break;
    }
  }
  yield {
    type: 'error',
    error: { class: 'provider_outage', message: 'Anthropic ended the stream before message_stop' },
  };
}
