import type { FlowModule, FlowStatusModule } from '@flowmesh/contracts';
import type { JobRecord } from '../store/job.record.js';
import type { SqlStatement } from '../store/sql-batch.js';
import type { ExpressionScope } from './expressions/expression-scope.js';
import type { FlowRun, StopSignal } from './flow-run.js';

/** How a module ended. */
export interface ModuleOutcome {
  readonly success: boolean;
  /** The module's result (a failed module's is `{ error }`): the next step's `previous_result`. */
  readonly result: unknown;
  /**
   * What `results.<id>` reads when it is not the result: an aidecision with branches, whose
   * result is its branch's while `results.<id>` stays its answers (Windmill's).
   */
  readonly namedResult?: unknown;
  /** Fields of the module's final status: job, flow_jobs(+success, duration), iterator, branch_chosen, branchall. */
  readonly status: Partial<FlowStatusModule>;
  /** Writes that commit with the module's completion (a leaf job's row and its last logs). */
  readonly statements: readonly SqlStatement[];
  readonly skipped?: boolean;
  /** A body flow stopped early (stop_after_if of a step inside a branch or loop iteration). */
  readonly stop?: StopSignal;
  /** The module's stop_after_if is not for the driver to evaluate (loops evaluate theirs per iteration). */
  readonly stopHandled?: boolean;
}

export type ModuleProgress =
  | { readonly kind: 'done'; readonly outcome: ModuleOutcome }
  /** The module waits; `wakeAt` (epoch ms) when the flow must look again by itself. */
  | { readonly kind: 'parked'; readonly wakeAt?: number };

export const PARKED: ModuleProgress = { kind: 'parked' };

export function done(outcome: ModuleOutcome): ModuleProgress {
  return { kind: 'done', outcome };
}

/** Where a module sits in its flow: a module of `modules`, or a special one. */
export type ModuleSlot = number | 'failure' | 'preprocessor';

/** Everything an executor needs about the module it runs. */
export interface ModuleContext {
  readonly run: FlowRun;
  readonly slot: ModuleSlot;
  readonly module: FlowModule;
  /** `value.modules[2]` (root) or the body's own path: where errors point. */
  readonly fieldPath: string;
  /** The module's current status (InProgress after a restart, else waiting). */
  readonly status: FlowStatusModule;
  /** Expressions of this module: flow_input, results, previous_result, resume, resumes, approvers, flow_env. */
  readonly scope: ExpressionScope;
  readonly previousResult: unknown;
  /** A retry runs with the arguments of the attempt that failed. */
  readonly retryArgs: Record<string, unknown> | undefined;
  /** Writes the module's in-progress status now (a long step, a loop's iterations). */
  saveProgress(status: FlowStatusModule, statements?: readonly SqlStatement[]): Promise<void>;
}

/** How a child flow job (iteration, branch, subflow) ended, or that it waits. */
export type ChildOutcome =
  | {
      readonly kind: 'done';
      readonly success: boolean;
      readonly result: unknown;
      readonly stop?: StopSignal;
      readonly record: JobRecord;
    }
  | { readonly kind: 'parked' };

/** The driver as the executors of container modules use it. */
export interface ChildDriver {
  /** Drives a child flow job in this process (it was just inserted, or is resumed after a restart). */
  driveChild(parent: FlowRun, child: JobRecord | string): Promise<ChildOutcome>;
  /** Runs a body in memory only (a squashed loop iteration): nothing is written. */
  driveEphemeral(parent: FlowRun, child: JobRecord): Promise<ChildOutcome>;
}
