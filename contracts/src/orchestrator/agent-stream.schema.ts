import { z } from 'zod';

/**
 * One event of an AI step that streams (OpenFlow `streaming: true`), with the spec's names: the
 * model's text and reasoning as they come, the tool calls it makes (their arguments as they
 * come), and each tool's run and result.
 */
export const AgentStreamEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('token_delta'), content: z.string() }),
  z.object({ type: z.literal('reasoning_token_delta'), content: z.string() }),
  z.object({ type: z.literal('tool_call'), call_id: z.string(), function_name: z.string() }),
  z.object({ type: z.literal('tool_call_arguments'), call_id: z.string(), arguments: z.string() }),
  z.object({ type: z.literal('tool_execution'), call_id: z.string(), function_name: z.string() }),
  z.object({
    type: z.literal('tool_result'),
    call_id: z.string(),
    function_name: z.string(),
    result: z.string(),
    success: z.boolean(),
  }),
]);
export type AgentStreamEvent = z.infer<typeof AgentStreamEventSchema>;

/**
 * An event as published on its run's stream: the step (its job and id) and its place in that
 * step's stream (`seq` from 0, no gaps while nothing is lost).
 */
export const AgentStreamEnvelopeSchema = z.object({
  job_id: z.uuid(),
  step_id: z.string(),
  seq: z.int().nonnegative(),
  event: AgentStreamEventSchema,
});
export type AgentStreamEnvelope = z.infer<typeof AgentStreamEnvelopeSchema>;

/**
 * Relative subject (a wildcard) of a flow run's stream, named by the run's (root) job id, which a
 * caller knows as soon as it started the run: every streaming AI step of the run publishes under
 * it, each on its own `stepStreamSubject` (core NATS, nothing waits for it). The `runStreams`
 * stream keeps what was said for a day, so a reader who comes late or reconnects misses nothing:
 * `GET jobs_u/stream/{id}` replays it from the start, or after the stream sequence a reconnecting
 * client names (`Last-Event-ID`), then follows it live.
 */
export function runStreamSubject(rootJobId: string): string {
  return `runstream.${rootJobId}.>`;
}

/**
 * Where one step of a run publishes (`runstream.<run>.<step job>`): a replica taking the step
 * over reads its last event there and goes on with the next `seq`.
 */
export function stepStreamSubject(rootJobId: string, stepJobId: string): string {
  return `runstream.${rootJobId}.${stepJobId}`;
}
