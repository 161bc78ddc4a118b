import type { FinishReason } from '@flowmesh/contracts';

/** Converse's `stopReason`, normalized; a forced structured-output call is the answer, so it stops. */
export function bedrockFinishReason(
  stopReason: string | undefined,
  answeredThroughOutputTool: boolean,
): FinishReason {
  switch (stopReason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'tool_use':
      return answeredThroughOutputTool ? 'stop' : 'tool_calls';
    case 'max_tokens':
      return 'length';
    case 'model_context_window_exceeded':
      return 'context_window_exceeded';
    case 'guardrail_intervened':
    case 'content_filtered':
      return 'content_filter';
    default:
      return 'other';
  }
}
