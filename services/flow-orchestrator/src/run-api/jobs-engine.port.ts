import type {
  CallerIdentity,
  Job,
  JobLogsReply,
  JobResultReply,
  JobSummary,
  ListJobsRequest,
  Suspend,
} from '@flowmesh/contracts';
import type { Caller } from '../http/caller.js';

/** What starting a flow takes, past who asks: a saved flow by path, or a flow value (preview). */
export interface RunFlowCommand {
  readonly path?: string;
  readonly value?: Record<string, unknown>;
  readonly args: Record<string, unknown>;
  readonly tag?: string;
  readonly scheduled_for?: string;
  readonly job_id?: string;
  readonly priority?: number;
  readonly apply_preprocessor?: boolean;
  readonly memory_id?: string;
  readonly agent_drafts?: boolean;
  readonly pin_agents?: boolean;
}

/** A saved script by path (and hash), or inline content in a language. */
export interface RunScriptCommand {
  readonly path?: string;
  readonly hash?: string;
  readonly content?: string;
  readonly language?: string;
  readonly lock?: string;
  readonly args: Record<string, unknown>;
  readonly tag?: string;
  readonly scheduled_for?: string;
  readonly job_id?: string;
  readonly priority?: number;
}

/** The list filters, without the caller fields the run API fills itself. */
export type JobFilter = Omit<ListJobsRequest, 'actor' | 'workspace'>;

/** A flow parked on a step with `suspend`, as an approver answering it needs to know it. */
export interface SuspendedApproval {
  /** The flow job that waits. */
  readonly flowJobId: string;
  /** The step that suspended it, and that step's job when it ran one. */
  readonly stepId: string;
  readonly stepJobId: string | undefined;
  readonly suspend: Suspend;
  /** Who started the flow: `self_approval_disabled` refuses them. */
  readonly createdBy: string;
  readonly email: string;
  /** Approvals still needed. */
  readonly remaining: number;
  /** The expression context of `user_groups_required` when it is an expression. */
  readonly context: Readonly<Record<string, unknown>>;
}

/** An answer to a suspended step, once the run API has checked who gives it. */
export interface ResumeCommand {
  readonly workspace: string;
  readonly jobId: string;
  readonly resumeId: number;
  readonly approver: string;
  readonly payload: unknown;
  readonly approve: boolean;
  /** Null for the holder of a signed link who did not sign in. */
  readonly approverIdentity: CallerIdentity | null;
}

export type ResumeOutcome = 'resumed' | 'waiting' | 'cancelled';

/**
 * The engine as the run API uses it. `findJob` and `suspendedApproval` are raw reads (the run
 * API decides who may see what: `JobVisibility`, signed links); the rest act as the caller.
 */
export abstract class JobsEngine {
  abstract runFlow(caller: Caller, command: RunFlowCommand): Promise<string>;
  abstract runScript(caller: Caller, command: RunScriptCommand): Promise<string>;
  abstract findJob(workspace: string, id: string): Promise<Job | undefined>;
  /**
   * Until the job ends, or (`earlyReturn`, the default) a flow's `early_return` has its result;
   * `completed` false at the time limit.
   */
  abstract waitForResult(
    caller: Caller,
    id: string,
    timeoutMs: number,
    earlyReturn?: boolean,
  ): Promise<JobResultReply>;
  /** The result of module `nodeId` anywhere in the flow run's tree. */
  abstract resultByNode(caller: Caller, flowJobId: string, nodeId: string): Promise<unknown>;
  /** False when the job had already ended. */
  abstract cancel(caller: Caller, id: string, reason?: string): Promise<boolean>;
  abstract resumeSuspended(command: ResumeCommand): Promise<ResumeOutcome>;
  /** The step a flow (or that step's own job) waits on, or undefined when it waits on none. */
  abstract suspendedApproval(workspace: string, jobId: string): Promise<SuspendedApproval | undefined>;
  abstract list(caller: Caller, filter: JobFilter): Promise<JobSummary[]>;
  abstract logs(caller: Caller, id: string, offset: number): Promise<JobLogsReply>;
}
