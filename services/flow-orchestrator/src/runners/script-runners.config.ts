import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { settings } from '@flowmesh/bootstrap';
import type { z } from 'zod';
import type { ExpressionSandboxLimits } from '../sandbox/quickjs-expression.sandbox.js';
import type { SandboxNetwork } from './isolation/script-sandbox.js';

/** Settings of the script runners and the expression sandbox, keyed by environment variable. */
export const scriptRunnersSettingsShape = {
  /** Largest result a script job may return (bytes). */
  FLOWMESH_MAX_RESULT_BYTES: settings.positiveInt().default(2 * 1024 * 1024),
  /** TypeScript worker threads kept started per memory limit. */
  FLOWMESH_TS_WARM_THREADS: settings.positiveInt().default(2),
  /**
   * TypeScript threads running jobs that compute, at most (light jobs run best on few); threads
   * whose job awaits I/O do not count, up to FLOWMESH_TS_MAX_THREADS.
   */
  FLOWMESH_TS_CORE_THREADS: settings.positiveInt().default(Math.max(2, 2 * availableParallelism())),
  /**
   * TypeScript threads of one worker at most (jobs beyond wait): a job holds one while it runs,
   * also while it only awaits I/O, so this is more than the cores.
   */
  FLOWMESH_TS_MAX_THREADS: settings.positiveInt().default(32),
  /**
   * Jobs one TypeScript thread runs before it is replaced. A replacement costs a thread start and
   * the runs' kept realms: at 1 000, 100 ten-step flows in flight replaced a thread every ~0.3 s
   * and ran 263 flows/s; at 20 000, 353/s, with the worker's memory as high as before.
   */
  FLOWMESH_TS_JOBS_PER_THREAD: settings.positiveInt().default(20_000),
  /** The python3 and bash executables (names on PATH or absolute paths). */
  FLOWMESH_PYTHON: settings.text().default('python3'),
  FLOWMESH_BASH: settings.text().default('bash'),
  /** Where subprocess jobs get their working directories. */
  FLOWMESH_JOB_DIR: settings.text().default(join(tmpdir(), 'flowmesh-jobs')),
  /** Where the packages TypeScript scripts import are installed, a directory per lock. */
  FLOWMESH_PACKAGES_DIR: settings.text().default(join(tmpdir(), 'flowmesh-packages')),
  /** The npm executable that installs them (on the worker's own PATH). */
  FLOWMESH_NPM: settings.text().default('npm'),
  /**
   * The npm registry locks are installed from: the one dependency-locker resolves against
   * (`FLOWMESH_LOCKER_NPM_REGISTRY`), since a lock written with `omit-lockfile-registry-resolved`
   * names no host. Without it, npm's own configuration says.
   */
  FLOWMESH_NPM_REGISTRY: settings.httpUrl().optional(),
  /** Where the packages python3 scripts' locks pin are installed, a directory per lock. */
  FLOWMESH_PYTHON_PACKAGES_DIR: settings.text().default(join(tmpdir(), 'flowmesh-python-packages')),
  /** The python package index they come from (`file://` works): dependency-locker's `FLOWMESH_LOCKER_PYTHON_INDEX`. */
  FLOWMESH_PYTHON_INDEX: settings.text().optional(),
  /** The longest one install may take. */
  FLOWMESH_PACKAGES_TIMEOUT_S: settings.positiveInt().default(300),
  /** How long a worker uses a script's lock before it asks dependency-locker again (a refreshed lock). */
  FLOWMESH_PACKAGES_LOCK_CACHE_S: settings.positiveInt().default(300),
  /**
   * The unprivileged user scripts run as (a name, `uid` or `uid:gid`) when the worker is root;
   * `off`: the worker's own user. Scripts never get the worker's environment either way.
   */
  FLOWMESH_SANDBOX_USER: settings.text().default('nobody'),
  /**
   * Uids for scripts when the worker is root (`first-last`, uids nothing else on the machine
   * uses): each worker takes one for its thread sandbox and one per job it runs at once
   * (FLOWMESH_WORKER_CONCURRENCY), so no job can read or signal another's processes. The default
   * lies just above systemd's container uids (0x70000000, 65 536 uids: 1 008 workers of 64 jobs).
   * `off`: every script runs as FLOWMESH_SANDBOX_USER.
   */
  FLOWMESH_SANDBOX_UIDS: settings.text().default('1879048192-1879113727'),
  /** Where workers of this machine claim their uids (lock files; one directory for them all). */
  FLOWMESH_SANDBOX_UID_LOCKS: settings.text().default('/tmp/flowmesh-sandbox-uids'),
  /** `host`: scripts use the machine's network; `none`: no network at all (a namespace of their own). */
  FLOWMESH_SANDBOX_NETWORK: settings.oneOf(['host', 'none']).default('host'),
  /** PATH of subprocess jobs (the worker's own environment is not passed on). */
  PATH: settings.text().default('/usr/local/bin:/usr/bin:/bin'),
  /** Time limit of one flow expression (ms). */
  FLOWMESH_EXPR_TIMEOUT_MS: settings.positiveInt().default(1_000),
  /** Memory limit of one flow expression (MiB). */
  FLOWMESH_EXPR_MEMORY_MB: settings.positiveInt().default(32),
  /** Sandbox threads evaluating expressions at once. */
  FLOWMESH_EXPR_THREADS: settings.positiveInt().default(Math.min(2, availableParallelism())),
};

export interface ScriptRunnersConfig {
  readonly maxResultBytes: number;
  readonly typescriptWarmThreads: number;
  readonly typescriptJobsPerThread: number;
  readonly typescriptCoreThreads: number;
  readonly typescriptMaxThreads: number;
  readonly pythonExecutable: string;
  readonly bashExecutable: string;
  readonly jobDir: string;
  readonly packages: {
    readonly cacheDir: string;
    readonly npm: string;
    readonly registry?: string;
    readonly timeoutMs: number;
    readonly lockCacheMs: number;
  };
  readonly pythonPackages: { readonly cacheDir: string; readonly indexUrl?: string };
  readonly subprocessPath: string;
  /** Who scripts run as and which network they see (`isolation/`). */
  readonly scriptSandbox: {
    readonly user: string;
    readonly network: SandboxNetwork;
    /** `first-last` or `off` (`isolation/sandbox-uids.ts`). */
    readonly uids: string;
    readonly uidLocks: string;
  };
  readonly sandbox: Partial<ExpressionSandboxLimits>;
}

type Settings = z.output<z.ZodObject<typeof scriptRunnersSettingsShape>>;

export function toScriptRunnersConfig(env: Settings): ScriptRunnersConfig {
  return {
    maxResultBytes: env.FLOWMESH_MAX_RESULT_BYTES,
    typescriptWarmThreads: env.FLOWMESH_TS_WARM_THREADS,
    typescriptJobsPerThread: env.FLOWMESH_TS_JOBS_PER_THREAD,
    typescriptCoreThreads: Math.min(env.FLOWMESH_TS_CORE_THREADS, env.FLOWMESH_TS_MAX_THREADS),
    typescriptMaxThreads: env.FLOWMESH_TS_MAX_THREADS,
    pythonExecutable: env.FLOWMESH_PYTHON,
    bashExecutable: env.FLOWMESH_BASH,
    jobDir: env.FLOWMESH_JOB_DIR,
    packages: {
      cacheDir: env.FLOWMESH_PACKAGES_DIR,
      npm: env.FLOWMESH_NPM,
      ...(env.FLOWMESH_NPM_REGISTRY ? { registry: env.FLOWMESH_NPM_REGISTRY } : {}),
      timeoutMs: env.FLOWMESH_PACKAGES_TIMEOUT_S * 1000,
      lockCacheMs: env.FLOWMESH_PACKAGES_LOCK_CACHE_S * 1000,
    },
    pythonPackages: {
      cacheDir: env.FLOWMESH_PYTHON_PACKAGES_DIR,
      ...(env.FLOWMESH_PYTHON_INDEX ? { indexUrl: env.FLOWMESH_PYTHON_INDEX } : {}),
    },
    subprocessPath: env.PATH,
    scriptSandbox: {
      user: env.FLOWMESH_SANDBOX_USER,
      network: env.FLOWMESH_SANDBOX_NETWORK,
      uids: env.FLOWMESH_SANDBOX_UIDS,
      uidLocks: env.FLOWMESH_SANDBOX_UID_LOCKS,
    },
    sandbox: {
      timeoutMs: env.FLOWMESH_EXPR_TIMEOUT_MS,
      memoryBytes: env.FLOWMESH_EXPR_MEMORY_MB * 1024 * 1024,
      threads: env.FLOWMESH_EXPR_THREADS,
    },
  };
}
