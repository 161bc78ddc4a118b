import type { ConverseCommandOutput } from '@aws-sdk/client-bedrock-runtime';
import type { ReasoningPart, TextPart, ToolCall } from '@flowmesh/contracts';
import type { ChatCall, ProviderChatResult } from '../provider-adapter.js';
import { providerCallError } from '../provider-call.error.js';
import { structuredOutputTool } from '../shared/structured-output-tool.js';
import { bedrockFinishReason } from './bedrock-finish-reason.js';
import { normalizeBedrockUsage } from './bedrock-usage.js';

/** A Converse response, normalized (pure). Reasoning keeps its signature; the output tool's input becomes the text. */
export function parseConverseOutput(
  output: Pick<ConverseCommandOutput, 'output' | 'stopReason' | 'usage'>,
  call: Pick<ChatCall, 'responseFormat' | 'tools' | 'model'>,
  requestId?: string,
): ProviderChatResult {
  const message = output.output?.message;
  if (!message?.content) throw providerCallError('provider_outage', 'AWS Bedrock answered without a message');
  const outputTool = structuredOutputTool(call)?.name;
  const content: Array<TextPart | ReasoningPart> = [];
  const toolCalls: ToolCall[] = [];
  let answeredThroughOutputTool = false;
  for (const block of message.content) {
    if (block.text !== undefined) content.push({ type: 'text', text: block.text });
    else if (block.reasoningContent?.reasoningText) {
      const { text, signature } = block.reasoningContent.reasoningText;
      content.push({ type: 'reasoning', text: text ?? '', ...(signature ? { signature } : {}) });
    } else if (block.reasoningContent?.redactedContent) {
      content.push({
        type: 'reasoning',
        text: '',
        redacted: Buffer.from(block.reasoningContent.redactedContent).toString('base64'),
      });
    } else if (block.toolUse) {
      const input = JSON.stringify(block.toolUse.input ?? {});
      if (outputTool !== undefined && block.toolUse.name === outputTool) {
        answeredThroughOutputTool = true;
        content.push({ type: 'text', text: input });
      } else
        toolCalls.push({
          id: block.toolUse.toolUseId ?? `tooluse_${toolCalls.length}`,
          name: block.toolUse.name ?? '',
          arguments: input,
        });
    }
  }
  const usage = normalizeBedrockUsage(output.usage);
  return {
    ...(requestId ? { id: requestId } : {}),
    model: call.model,
    content,
    toolCalls,
    ...(usage ? { usage } : {}),
    finishReason: bedrockFinishReason(output.stopReason, answeredThroughOutputTool && toolCalls.length === 0),
    ...(output.stopReason ? { providerReason: output.stopReason } : {}),
  };
}
