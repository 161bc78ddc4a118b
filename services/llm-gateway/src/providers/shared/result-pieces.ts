import type { ProviderChatResult, ProviderStreamEvent } from '../provider-adapter.js';

/** A whole answer as the pieces a stream would have carried, for the same assembler. */
export function resultPieces(result: ProviderChatResult): ProviderStreamEvent[] {
  const pieces: ProviderStreamEvent[] = [
    {
      type: 'response',
      ...(result.id ? { id: result.id } : {}),
      ...(result.model ? { model: result.model } : {}),
    },
  ];
  result.content.forEach((part, index) => {
    if (part.type === 'text') pieces.push({ type: 'text', text: part.text });
    else
      pieces.push({
        type: 'reasoning',
        text: part.text,
        part: index,
        ...(part.signature !== undefined ? { signature: part.signature } : {}),
        ...(part.redacted !== undefined ? { redacted: part.redacted } : {}),
      });
  });
  result.toolCalls.forEach((call, index) => {
    pieces.push({
      type: 'tool_call_start',
      index,
      id: call.id,
      name: call.name,
      ...(call.signature !== undefined ? { signature: call.signature } : {}),
    });
    pieces.push({ type: 'tool_call_delta', index, arguments: call.arguments });
    pieces.push({ type: 'tool_call_end', index });
  });
  if (result.usage) pieces.push({ type: 'usage', usage: result.usage });
  pieces.push({
    type: 'finish',
    reason: result.finishReason,
    ...(result.providerReason ? { providerReason: result.providerReason } : {}),
  });
  return pieces;
}
