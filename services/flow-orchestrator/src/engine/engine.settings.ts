import { settings } from '@flowmesh/bootstrap';
import { checkSecretKeysSetting, secretKeyringOf, type SecretKeyring } from '@flowmesh/keyring';
import { z } from 'zod';

const wholeNumber = (what: string) =>
  z.string().regex(/^\d+$/, `must be a whole number of ${what}`).transform(Number);

/** Settings of the engine (scheduling, leases, limits), keyed by environment variable. */
export const engineSettingsShape = {
  /** Work messages a worker handles at once per tag (flows it drives, and queued steps). */
  FLOWMESH_WORKER_CONCURRENCY: settings.positiveInt().default(64),
  /** How long a work message may go unacknowledged before another worker gets it (ms). */
  FLOWMESH_WORK_ACK_WAIT_MS: settings.positiveInt().default(15_000),
  /** A script job's time limit when its step sets none (s). */
  FLOWMESH_JOB_TIMEOUT_S: settings.positiveInt().default(900),
  /** A script job's memory limit (MiB). */
  FLOWMESH_JOB_MEMORY_MB: settings.positiveInt().default(1_024),
  /** How long a run's job token lives (s). */
  FLOWMESH_JOB_TOKEN_TTL_S: settings.positiveInt().default(24 * 60 * 60),
  /** How often parked jobs that are due are woken (ms). */
  FLOWMESH_TIMER_POLL_MS: settings.positiveInt().default(100),
  /** A step running longer than this shows InProgress and writes its logs as they come (ms). */
  FLOWMESH_LIVE_AFTER_MS: wholeNumber('milliseconds').default(100),
  /** Children of a parallel loop run at once in one worker when the loop sets no parallelism. */
  FLOWMESH_INLINE_PARALLELISM: settings.positiveInt().default(32),
  /**
   * Saved flows nested in one run (subflow steps, and flows an agent runs as tools): a deeper
   * one fails naming the chain, so two flows that call each other end instead of flooding the mesh.
   */
  FLOWMESH_MAX_FLOW_DEPTH: settings.positiveInt().default(32),
  /** Postgres connections of one orchestrator process. */
  FLOWMESH_DB_POOL_SIZE: settings.positiveInt().default(20),
  /**
   * Keys that seal the runs' job tokens at rest (`keyid:base64key,...`, 32-byte keys, the first
   * current), shared by the orchestrator and its workers. Required with NODE_ENV=production;
   * elsewhere a public development key (which protects nothing) is used, with a warning.
   */
  FLOWMESH_JOB_TOKEN_STORE_KEYS: z.string().optional(),
};

export interface EngineSettings {
  readonly workerConcurrency: number;
  readonly ackWaitMs: number;
  readonly defaultTimeoutMs: number;
  readonly defaultMemoryMb: number;
  readonly jobTokenTtlSeconds: number;
  readonly timerPollMs: number;
  readonly liveAfterMs: number;
  readonly maxInlineParallelism: number;
  readonly maxFlowDepth: number;
  readonly dbPoolSize: number;
  readonly jobTokenKeys: SecretKeyring;
}

type Settings = z.output<z.ZodObject<typeof engineSettingsShape>>;

const JOB_TOKEN_KEYS_SETTING = 'FLOWMESH_JOB_TOKEN_STORE_KEYS';

export function checkEngineSettings(env: Settings & { NODE_ENV?: string }, ctx: z.RefinementCtx): void {
  checkSecretKeysSetting(JOB_TOKEN_KEYS_SETTING, env.FLOWMESH_JOB_TOKEN_STORE_KEYS, env.NODE_ENV, ctx);
}

export function toEngineSettings(env: Settings): EngineSettings {
  return {
    workerConcurrency: env.FLOWMESH_WORKER_CONCURRENCY,
    ackWaitMs: env.FLOWMESH_WORK_ACK_WAIT_MS,
    defaultTimeoutMs: env.FLOWMESH_JOB_TIMEOUT_S * 1000,
    defaultMemoryMb: env.FLOWMESH_JOB_MEMORY_MB,
    jobTokenTtlSeconds: env.FLOWMESH_JOB_TOKEN_TTL_S,
    timerPollMs: env.FLOWMESH_TIMER_POLL_MS,
    liveAfterMs: env.FLOWMESH_LIVE_AFTER_MS,
    maxInlineParallelism: env.FLOWMESH_INLINE_PARALLELISM,
    maxFlowDepth: env.FLOWMESH_MAX_FLOW_DEPTH,
    dbPoolSize: env.FLOWMESH_DB_POOL_SIZE,
    jobTokenKeys: secretKeyringOf(JOB_TOKEN_KEYS_SETTING, env.FLOWMESH_JOB_TOKEN_STORE_KEYS, 'job token key'),
  };
}
