import type { ChatMessage, ToolCall, ToolResultMessage } from '@flowmesh/contracts';
import type { TotalUsage } from '../loop/usage.js';

/** What a parked agent waits for: one answer to the calls that need approval, or to its question. */
export interface WaitingRequest {
  readonly kind: 'approval' | 'question';
  /** The request's id: the id of its first call, which an answer names (`payload.call_id`). */
  readonly callId: string;
  /** The calls the answer decides. */
  readonly callIds: readonly string[];
  readonly timeoutS: number;
  /** When nobody has answered: ISO date-time. */
  readonly until: string;
}

/**
 * A running agent's state when the model last asked for tools, as stored on its `agent_run` row:
 * a replica that takes the step over goes on from here (that turn's calls), not from the start.
 */
export interface AgentProgress {
  readonly record: ChatMessage[];
  readonly context: ChatMessage[];
  readonly usage: TotalUsage;
  /** The model calls made so far, the one that asked for `calls` included. */
  readonly iteration: number;
  readonly calls: readonly ToolCall[];
}

/** What became of one call of the turn in progress: the tool job it started, then its result. */
export interface CallProgress {
  readonly jobId?: string;
  readonly result?: ToolResultMessage;
}

/**
 * A parked agent, as stored on its `agent_run` row: the loop's state after the model's turn that
 * asked, the turn's calls and the results of those that already ran, and what it waits for.
 */
export interface AgentCheckpoint {
  readonly record: ChatMessage[];
  readonly context: ChatMessage[];
  readonly usage: TotalUsage;
  /** The model calls made so far; the resumed loop goes on with the next. */
  readonly iteration: number;
  readonly calls: readonly ToolCall[];
  readonly results: Readonly<Record<string, ToolResultMessage>>;
  readonly waiting: WaitingRequest;
}

/** An answer: approved or not, by whom, a comment, and a question's answer. Null when it timed out. */
export interface AgentAnswer {
  readonly approved: boolean;
  readonly approver: string;
  readonly comment?: string;
  readonly answer?: string | readonly string[];
}
