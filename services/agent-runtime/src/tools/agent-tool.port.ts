import type { AgentAction, AgentTool, InlineDataPart, ToolDefinition } from '@flowmesh/contracts';

/** What running one tool call gave: the text the model reads, and the job that ran it. */
export interface ToolCallOutcome {
  readonly ok: boolean;
  /** JSON of the tool's result, or of its error. */
  readonly content: string;
  /**
   * Images and PDFs the tool returned (an MCP image result): shown to the model with the result
   * in this run, never stored (`content` names each one in their place).
   */
  readonly media?: readonly InlineDataPart[];
  readonly jobId?: string;
}

/** The job a call runs as (see `PreparedTool.run`). */
export interface ToolJob {
  readonly id: string;
  readonly started: boolean;
}

/** A tool of the agent as the model is shown it, and how to run a call of it. */
export interface PreparedTool {
  readonly tool: AgentTool;
  readonly definition: ToolDefinition;
  /** A call waits for a person's approval before it runs (`requires_approval`). */
  readonly requiresApproval?: boolean;
  /** The question tool: a call parks the step until the user answers, or `timeoutS` passes. */
  readonly question?: { readonly timeoutS: number };
  /**
   * Runs one call with the model's arguments (already parsed) as the step's identity; `onStarted`
   * gets the step's action for it (the tool job's id, or the MCP call) once it is under way.
   * `job.id` is the id a tool that runs as a job starts it under: derived from the step and the
   * call, the same on every run of the step (the call's idempotency key, `WM_JOB_ID`), so a job
   * started before a crash is the one waited for. `job.started`: an earlier replica started it and
   * reported its action; it is waited for. Other tools run the call again.
   */
  run(
    args: Record<string, unknown>,
    onStarted: (action: AgentAction) => void,
    signal: AbortSignal,
    job?: ToolJob,
  ): Promise<ToolCallOutcome>;
}

/** The tools of one step, and what to release once it is done (MCP sessions). */
export interface ToolSet {
  readonly tools: PreparedTool[];
  close(): Promise<void>;
}

/** The largest tool result given back to the model; a longer one is cut, and says so. */
export const MAX_RESULT_CHARS = 64 * 1024;

export function cappedResult(text: string): string {
  return text.length <= MAX_RESULT_CHARS
    ? text
    : `${text.slice(0, MAX_RESULT_CHARS)}... [cut: the result has ${text.length} characters]`;
}
