import type { ConverseStreamOutput } from '@aws-sdk/client-bedrock-runtime';
import type { ChatCall, ProviderStreamEvent } from '../provider-adapter.js';
import { structuredOutputTool } from '../shared/structured-output-tool.js';
import { classifyBedrockException } from './bedrock-error.classifier.js';
import { bedrockFinishReason } from './bedrock-finish-reason.js';
import { normalizeBedrockUsage } from './bedrock-usage.js';

type OpenBlock = { kind: 'tool'; index: number } | { kind: 'output' } | { kind: 'reasoning'; part: number };

const STREAM_EXCEPTIONS = [
  'internalServerException',
  'modelStreamErrorException',
  'serviceUnavailableException',
  'throttlingException',
  'validationException',
] as const;

/**
 * ConverseStream events (as the SDK decodes them), normalized. Only tool-use blocks open with
 * `contentBlockStart`; text and reasoning blocks begin with a delta. So a tool call's index is a
 * running count of tool-use blocks, taken at their start, and only a stopped tool-use block ends
 * a call: a stopped text block advances nothing (the known windmill follow-up, fixed here).
 * `metadata` (usage) comes after `messageStop`, so the finish is sent when the stream ends.
 */
export async function* parseConverseStream(
  events: AsyncIterable<ConverseStreamOutput>,
  call: Pick<ChatCall, 'responseFormat' | 'tools' | 'model'>,
  requestId?: string,
): AsyncIterable<ProviderStreamEvent> {
  const outputTool = structuredOutputTool(call)?.name;
  const blocks = new Map<number, OpenBlock>();
  let toolCount = 0;
  let reasoningParts = 0;
  let stopReason: string | undefined;
  let answeredThroughOutputTool = false;
  let sawMessageStop = false;
  yield { type: 'response', ...(requestId ? { id: requestId } : {}), model: call.model };
  for await (const event of events) {
    if (event.contentBlockStart) {
      const index = event.contentBlockStart.contentBlockIndex ?? 0;
      const toolUse = event.contentBlockStart.start?.toolUse;
      if (toolUse?.name === outputTool && outputTool !== undefined) {
        blocks.set(index, { kind: 'output' });
        answeredThroughOutputTool = true;
      } else if (toolUse) {
        const ordinal = toolCount++;
        blocks.set(index, { kind: 'tool', index: ordinal });
        yield {
          type: 'tool_call_start',
          index: ordinal,
          id: toolUse.toolUseId ?? `tooluse_${ordinal}`,
          name: toolUse.name ?? '',
        };
      }
    } else if (event.contentBlockDelta) {
      const index = event.contentBlockDelta.contentBlockIndex ?? 0;
      const delta = event.contentBlockDelta.delta;
      const block = blocks.get(index);
      if (delta?.text !== undefined) {
        if (delta.text !== '') yield { type: 'text', text: delta.text };
      } else if (delta?.toolUse) {
        const input = delta.toolUse.input ?? '';
        if (input === '') continue;
        if (block?.kind === 'tool') yield { type: 'tool_call_delta', index: block.index, arguments: input };
        else if (block?.kind === 'output') yield { type: 'text', text: input };
      } else if (delta?.reasoningContent) {
        let reasoning = block;
        if (reasoning?.kind !== 'reasoning') {
          reasoning = { kind: 'reasoning', part: reasoningParts++ };
          blocks.set(index, reasoning);
        }
        const content = delta.reasoningContent;
        if (content.text !== undefined) yield { type: 'reasoning', text: content.text, part: reasoning.part };
        else if (content.signature !== undefined)
          yield { type: 'reasoning', text: '', signature: content.signature, part: reasoning.part };
        else if (content.redactedContent !== undefined) {
          yield {
            type: 'reasoning',
            text: '',
            redacted: Buffer.from(content.redactedContent).toString('base64'),
            part: reasoning.part,
          };
        }
      }
    } else if (event.contentBlockStop) {
      const block = blocks.get(event.contentBlockStop.contentBlockIndex ?? 0);
      if (block?.kind === 'tool') yield { type: 'tool_call_end', index: block.index };
    } else if (event.messageStop) {
      sawMessageStop = true;
      stopReason = event.messageStop.stopReason;
    } else if (event.metadata) {
      const usage = normalizeBedrockUsage(event.metadata.usage);
      if (usage) yield { type: 'usage', usage };
    } else {
      const name = STREAM_EXCEPTIONS.find((key) => event[key] !== undefined);
      if (name) {
        const exception = event[name];
        yield {
          type: 'error',
          error: classifyBedrockException({
            name: name.charAt(0).toUpperCase() + name.slice(1),
            message: exception?.message,
          }),
        };
        return;
      }
    }
  }
  if (!sawMessageStop) {
    yield {
      type: 'error',
      error: { class: 'provider_outage', message: 'AWS Bedrock ended the stream before messageStop' },
    };
    return;
  }
  yield {
    type: 'finish',
    reason: bedrockFinishReason(stopReason, answeredThroughOutputTool && toolCount === 0),
    ...(stopReason ? { providerReason: stopReason } : {}),
  };
}
