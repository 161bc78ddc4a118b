import type { FinishReason } from '@flowmesh/contracts';

export function openAIFinishReason(reason: string | null | undefined, hadToolCalls: boolean): FinishReason {
  switch (reason) {
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls';
    case 'length':
      return 'length';
    case 'content_filter':
      return 'content_filter';
    case 'stop':
    case 'eos':
    case undefined:
    case null:
      // Some compatible servers say `stop` after tool calls.
      return hadToolCalls ? 'tool_calls' : 'stop';
    default:
      return hadToolCalls ? 'tool_calls' : 'other';
  }
}
