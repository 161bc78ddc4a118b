import type { ScriptLanguage } from '@flowmesh/contracts';
import { userStack } from './user-stack.js';

/**
 * Runs one script job: TypeScript (`bun`, `nativets`, `deno`) from a warm pool, `python3` and
 * `bash` as subprocesses, `postgresql` against a resource. Implemented in `runners/`; the engine
 * only calls `ScriptRunnerRegistry.run`.
 */
export interface ScriptJob {
  readonly id: string;
  readonly workspace: string;
  readonly language: ScriptLanguage;
  readonly content: string;
  /** `main`'s arguments by name, already evaluated (`$var:`/`$res:` resolved). */
  readonly args: Readonly<Record<string, unknown>>;
  /**
   * Environment of the job: `WM_TOKEN` (the job token), `WM_WORKSPACE`, `WM_JOB_ID`,
   * `WM_FLOW_JOB_ID`, `WM_ROOT_FLOW_JOB_ID`, `WM_FLOW_STEP_ID`, `WM_PERMISSIONED_AS`, plus the
   * flow's `flow_env`. Never logged: it holds the job token.
   */
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly memoryMb: number;
  /** The lockfile of its dependencies, when it has one. */
  readonly lock?: string | null;
  /** Path of the saved script or of the step (`<flow path>/<step id>`), for logs and stack traces. */
  readonly path?: string | null;
  /** The function to call (default `main`); a flow's preprocessor module runs `preprocessor`. */
  readonly entrypoint?: string;
  /**
   * A run from a trigger of a script that exports Windmill's `preprocessor`: the runner calls
   * `preprocessor` with `args` first, then `main` with its result (an object as is, nothing as
   * `{}`, anything else as `{ value }`), in the one job, and reports that result through
   * `ScriptRunOptions.onPreprocessed`. TypeScript and python3 only.
   */
  readonly preprocess?: boolean;
  /**
   * Jobs with the same key may share one JavaScript realm (globals), as the steps of one flow
   * run acting with one token do: a realm costs more to make than a light step to run. Jobs of
   * different keys never share one. Absent: a realm of its own.
   */
  readonly realmKey?: string;
  /**
   * The authority the job acts with (its token's workspace, principal and scopes): a thread a job
   * reached into (an import may change a built-in module for whoever runs there next) serves only
   * jobs of the same trust key afterwards, each still in a realm of its own run. Absent: its
   * `realmKey` (its run) stands for it.
   */
  readonly trustKey?: string;
  /** Among jobs waiting for a runner's capacity (a thread), higher priority goes first. */
  readonly priority?: number;
  /**
   * Jobs with the same key run in the same working directory (the steps of a `same_worker` flow
   * share `./shared`, as Windmill's): the flow run's root job id. Absent: a directory of its own.
   */
  readonly workdirKey?: string;
}

export interface ScriptRunOptions {
  /** Aborted when the job is cancelled: the runner stops the script and rejects with a `JobError` named `Canceled`. */
  readonly signal?: AbortSignal;
  /** Called once when the job begins to run, after any wait for a thread: its start time. */
  readonly onStart?: () => void;
  /** Called once a `preprocess` job's preprocessor returned: the arguments `main` is called with. */
  readonly onPreprocessed?: (args: Record<string, unknown>) => void;
}

/** One line of stdout/stderr of the job, as it is written. */
export type LogLineSink = (line: string) => void;

export interface ScriptRunner {
  readonly languages: readonly ScriptLanguage[];
  /** The script's result (`main`'s return value as JSON); rejects with a `JobError`. */
  run(job: ScriptJob, onLog: LogLineSink, options?: ScriptRunOptions): Promise<unknown>;
}

export interface ScriptRunnerRegistry {
  /** Languages this process can run. */
  readonly languages: readonly ScriptLanguage[];
  /**
   * Runs the job with the runner of its language. An unsupported language rejects at once with
   * a `JobError` named `UnsupportedLanguage` whose message names the language and the worker
   * tags that would serve it.
   */
  run(job: ScriptJob, onLog: LogLineSink, options?: ScriptRunOptions): Promise<unknown>;
}

export const SCRIPT_RUNNER_REGISTRY = Symbol('SCRIPT_RUNNER_REGISTRY');

/**
 * The error a job fails with: its result becomes `{ error: { name, message, stack? } }` (as
 * Windmill's). A script's own thrown error keeps its name and message; the runner names its
 * own failures: `UnsupportedLanguage`, `Timeout`, `MemoryLimitExceeded`, `ResultTooLarge`,
 * `Canceled`, `ExecutionErr` (a non-zero exit without a structured error).
 */
export class JobError extends Error {
  /** The script's stack trace, its own frames only (`userStack`). */
  readonly jobStack?: string;

  constructor(
    name: string,
    message: string,
    jobStack?: string,
    /** Extra fields kept in the error object (e.g. `step_id`, `result` of an early stop). */
    readonly extra: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
    this.name = name;
    const stack = userStack(jobStack);
    if (stack !== undefined) this.jobStack = stack;
  }

  toJSON(): { name: string; message: string; stack?: string } & Record<string, unknown> {
    return {
      ...this.extra,
      name: this.name,
      message: this.message,
      ...(this.jobStack === undefined ? {} : { stack: this.jobStack }),
    };
  }

  /** Any thrown value as a JobError (an Error keeps its name, message and stack). */
  static from(error: unknown): JobError {
    if (error instanceof JobError) return error;
    if (error instanceof Error) return new JobError(error.name || 'Error', error.message, error.stack);
    return new JobError(
      'Error',
      typeof error === 'string' ? error : (JSON.stringify(error) ?? String(error)),
    );
  }
}
