import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** How a tool's run ended: `success` false carries the job's `{ error }`. */
export interface RunOutcome {
  readonly jobId: string;
  readonly success: boolean;
  readonly result: unknown;
}

/** A tool error: the client's agent reads the text and may try again (MCP's `isError`). */
export function toolError(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** The message of a failed run's result (`{ error: { name, message } }`), or the result as JSON. */
export function runErrorMessage(result: unknown): string {
  const error = (result as { error?: unknown } | null)?.error ?? result;
  const message = (error as { message?: unknown } | null)?.message;
  if (typeof message === 'string' && message !== '') return message;
  return JSON.stringify(error) ?? 'the run failed';
}

/**
 * What a tool call answers: the run's result as JSON text (an object also as `structuredContent`,
 * for clients that read it), or, for a failed run, a tool error with its message. The job id rides
 * in `_meta` so a client can find the run.
 */
export function callResultOf(outcome: RunOutcome): CallToolResult {
  const meta = { _meta: { 'flowmesh/job_id': outcome.jobId } };
  if (!outcome.success) return { ...toolError(runErrorMessage(outcome.result)), ...meta };
  const text = JSON.stringify(outcome.result) ?? 'null';
  const structured =
    typeof outcome.result === 'object' && outcome.result !== null && !Array.isArray(outcome.result)
      ? { structuredContent: outcome.result as Record<string, unknown> }
      : {};
  return { content: [{ type: 'text', text }], ...structured, ...meta };
}
