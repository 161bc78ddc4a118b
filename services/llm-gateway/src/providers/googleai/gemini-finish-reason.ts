import type { FinishReason } from '@flowmesh/contracts';

const FILTERED = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'LANGUAGE',
]);

/** Gemini's `finishReason`, normalized: it says `STOP` even after calling functions, so calls decide. */
export function geminiFinishReason(reason: string | undefined, calledFunctions: boolean): FinishReason {
  if (reason === 'STOP') return calledFunctions ? 'tool_calls' : 'stop';
  if (reason === 'MAX_TOKENS') return 'length';
  if (reason !== undefined && FILTERED.has(reason)) return 'content_filter';
  return 'other';
}
