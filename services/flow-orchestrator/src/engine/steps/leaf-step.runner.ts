import { jobTokenAuthority, MeshError, type JobKind, type ScriptLanguage } from '@flowmesh/contracts';
import { isDatabaseUnavailable } from '@flowmesh/persistence';
import { Inject, Injectable } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { JobStore } from '../../store/job.store.js';
import { ExpressionError } from '../../ports/expression-sandbox.port.js';
import type { SqlStatement } from '../../store/sql-batch.js';
import {
  JobError,
  SCRIPT_RUNNER_REGISTRY,
  type ScriptRunnerRegistry,
} from '../../ports/script-runner.port.js';
import { JobTokens } from '../../registry/job-tokens.js';
import { hasReferences, RegistryGateway } from '../../registry/registry.gateway.js';
import { ConcurrencyLimiter } from '../concurrency.limiter.js';
import { ENGINE_CONFIG, type EngineConfig } from '../engine.config.js';
import { envStrings, FlowEnvResolver } from './flow-env.resolver.js';
import { LogBuffer } from './log-buffer.js';

/** One script or identity job, ready to run. */
export interface LeafJob {
  readonly id: string;
  readonly workspace: string;
  readonly rootJob: string;
  readonly flowJob: string | null;
  readonly stepId: string | null;
  readonly kind: JobKind;
  readonly language: ScriptLanguage | null;
  readonly content: string | null;
  readonly lock: string | null;
  readonly path: string | null;
  /** As stored: `$var:`/`$res:` references are resolved only here, just before running. */
  readonly args: Record<string, unknown>;
  readonly timeoutMs: number;
  readonly memoryMb: number;
  readonly tokenJob: string;
  readonly envJob: string | undefined;
  readonly entrypoint: string | undefined;
  /** Run the script's `preprocessor` first (`ScriptJob.preprocess`): a script run from a trigger. */
  readonly preprocess?: boolean;
  readonly onBehalfOf: string;
  /** Jobs with one key share a working directory (a same_worker flow's steps). */
  readonly workdirKey: string | undefined;
  /** The step's own concurrency limit: it waits for a slot of its key before it runs. */
  readonly concurrency: { key: string; limit: number; windowS: number } | undefined;
  /** Higher runs first among jobs waiting for the same runner (`priority` of the step or flow). */
  readonly priority?: number | null;
}

export interface LeafRun {
  readonly success: boolean;
  /** The result, or `{ error: { name, message, stack? } }`. */
  readonly result: unknown;
  readonly startedAt: Date;
  readonly durationMs: number;
  /** The job's last log lines, to commit with its result. */
  readonly logs: SqlStatement | undefined;
  /** What its preprocessor gave `main`, when it ran one: the job's arguments from now on. */
  readonly preprocessedArgs?: Record<string, unknown>;
}

/** Runs a leaf job with the runner of its language, as the run's identity. */
@Injectable()
export class LeafStepRunner {
  constructor(
    @Inject(SCRIPT_RUNNER_REGISTRY) private readonly runners: ScriptRunnerRegistry,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    private readonly jobs: JobStore,
    private readonly registry: RegistryGateway,
    private readonly tokens: JobTokens,
    private readonly flowEnv: FlowEnvResolver,
    private readonly concurrency: ConcurrencyLimiter,
  ) {}

  /**
   * Runs the job. What the job itself does wrong (its script throws, its arguments name a
   * variable it may not read, its language is not served) is its failed result; the engine's
   * own trouble (the database unreachable) is thrown, so the step is tried again later rather
   * than failed for good.
   */
  async run(job: LeafJob, signal?: AbortSignal, onStart?: () => void): Promise<LeafRun> {
    // Started when it runs: the wait for a concurrency slot or a thread is not its time.
    let startedAt = new Date();
    const started = (): void => {
      startedAt = new Date();
      onStart?.();
    };
    const logs = new LogBuffer(
      job.id,
      (s) => this.jobs.execute([s]).then(() => undefined),
      this.config.liveAfterMs,
    );
    let success = true;
    let result: unknown;
    let preprocessedArgs: Record<string, unknown> | undefined;
    const slot = job.concurrency;
    if (slot) await this.concurrency.acquireSlot(slot.key, job.id, slot.limit, slot.windowS, signal);
    try {
      result = await this.execute(job, logs, signal, started, (args) => (preprocessedArgs = args));
    } catch (error) {
      if (!isJobFailure(error)) throw error;
      success = false;
      // A step's error names its step, as Windmill's language wrappers do (WM_FLOW_STEP_ID).
      const object = errorObject(error);
      if (job.stepId && object.step_id === undefined) object.step_id = job.stepId;
      result = { error: object };
    } finally {
      if (slot) await this.concurrency.releaseSlot(slot.key, job.id);
    }
    return {
      success,
      result,
      startedAt,
      durationMs: Date.now() - startedAt.getTime(),
      logs: await logs.close(),
      ...(preprocessedArgs === undefined ? {} : { preprocessedArgs }),
    };
  }

  private async execute(
    job: LeafJob,
    logs: LogBuffer,
    signal: AbortSignal | undefined,
    onStart: () => void,
    onPreprocessed: (args: Record<string, unknown>) => void,
  ): Promise<unknown> {
    if (job.kind === 'identity') {
      onStart();
      return job.args.previous_result ?? null;
    }
    if (!job.language || job.content === null)
      throw new JobError('ExecutionErr', `job ${job.id} has no code to run`);
    const token = await this.tokens.tokenOf(job.tokenJob);
    const trustKey = jobTokenAuthority(token);
    const args = hasReferences(job.args)
      ? ((await this.registry.interpolate(token, job.workspace, job.args)) as Record<string, unknown>)
      : job.args;
    const flowEnv = envStrings(await this.flowEnv.resolve(job.envJob, job.tokenJob));
    const env: Record<string, string> = {
      ...flowEnv,
      WM_TOKEN: token,
      WM_WORKSPACE: job.workspace,
      WM_JOB_ID: job.id,
      WM_ROOT_FLOW_JOB_ID: job.rootJob,
      WM_PERMISSIONED_AS: job.onBehalfOf,
      ...(job.flowJob ? { WM_FLOW_JOB_ID: job.flowJob } : {}),
      ...(job.stepId ? { WM_FLOW_STEP_ID: job.stepId } : {}),
      ...(job.path ? { WM_JOB_PATH: job.path } : {}),
    };
    return this.runners.run(
      {
        id: job.id,
        workspace: job.workspace,
        language: job.language,
        content: job.content,
        args,
        env,
        timeoutMs: job.timeoutMs,
        memoryMb: job.memoryMb,
        lock: job.lock,
        path: job.path,
        ...(job.entrypoint ? { entrypoint: job.entrypoint } : {}),
        ...(job.preprocess ? { preprocess: true } : {}),
        ...(job.workdirKey ? { workdirKey: job.workdirKey } : {}),
        // The steps of one run acting with one token may share globals; nothing else does.
        realmKey: `${job.rootJob}:${job.tokenJob}`,
        // Jobs acting with one authority may share a thread one of them reached into.
        ...(trustKey === undefined ? {} : { trustKey }),
        ...(job.priority != null ? { priority: job.priority } : {}),
      },
      logs.push,
      signal ? { signal, onStart, onPreprocessed } : { onStart, onPreprocessed },
    );
  }
}

/** A failure of the job itself (not of the engine running it). */
export function isJobFailure(error: unknown): boolean {
  if (error instanceof MeshError || error instanceof JobError || error instanceof ExpressionError)
    return true;
  // The database's errors, and a database that could not serve, are the engine's.
  return !(error instanceof QueryFailedError || isDatabaseUnavailable(error));
}

/** Any failure as the `{ name, message, stack? }` a failed job returns. */
export function errorObject(error: unknown): Record<string, unknown> {
  if (error instanceof MeshError) return { name: error.code, message: error.message };
  if (error instanceof JobError) return error.toJSON();
  // The engine's own failures: never its stack.
  if (error instanceof Error) return { name: error.name || 'Error', message: error.message };
  return { name: 'Error', message: String(error) };
}
