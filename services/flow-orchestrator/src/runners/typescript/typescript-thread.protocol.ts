import type { JobPackages } from './import-specifier.util.js';
import type { WorkspaceModules } from './workspace-modules.js';

/** Messages between the TypeScript runner and its worker threads. */

/**
 * Realms a thread keeps for later jobs of the same key, least recently used dropped first. A realm
 * costs ~0.7 ms of CPU to make and ~170 KB to keep: with 100 ten-step runs in flight a thread
 * serves more than 8 runs between two steps of one, so at 8 a run's next step often found its
 * realm gone.
 */
export const REALMS_PER_THREAD = 32;
export interface JobFailure {
  readonly name: string;
  readonly message: string;
  readonly stack?: string;
}

export interface ThreadJob {
  /**
   * The script as the JavaScript source of its async module function: types stripped and the
   * module rewritten by the runner, once per distinct script, so a new thread never loads the
   * TypeScript stripper (~150 ms of CPU, paid again by each replacement of a retired thread).
   */
  readonly functionSource: string;
  /** The arguments as JSON, parsed inside the job's realm so they are its own objects. */
  readonly argsJson: string;
  /** The environment as JSON: the realm parses it as its own, the thread only if it lends its env. */
  readonly envJson: string;
  readonly entrypoint: string;
  /** Call `preprocessor` first, then the entrypoint with its result (`ScriptJob.preprocess`). */
  readonly preprocess?: boolean;
  /** Parameters typed `Date`: their string arguments become the realm's `Date`s (Windmill's). */
  readonly dateParams?: readonly string[];
  readonly maxResultBytes: number;
  readonly path?: string | null;
  /** Jobs with one key reuse one realm on this thread (see `ScriptJob.realmKey`). */
  readonly realmKey?: string;
  /**
   * The authority the job acts with (see `ScriptJob.trustKey`): once a job reached into the
   * thread, only jobs of its trust key (else of its realm key) run there.
   */
  readonly trustKey?: string;
  /** The packages installed for this job (its imports of them are loaded from there). */
  readonly packages?: JobPackages;
  /** The workspace scripts it imports, read before it started. */
  readonly workspace?: WorkspaceModules;
}

export type ThreadInbound = { readonly type: 'run'; readonly job: ThreadJob };

/** A job still running this long while its thread is free awaits something outside it (ms). */
export const AWAITING_AFTER_MS = 10;

/**
 * `reusable`: the thread is clean, any job may run there next. `keepsRun`: the job (or an earlier
 * one of its run) reached into the thread's realm (an import, a host global) and ended without an
 * escaped error: the thread may still serve later jobs of the same `trustKey` (else `realmKey`),
 * never another's.
 */
export type ThreadOutbound =
  | { readonly type: 'ready' }
  /** The running job awaits I/O or a timer (sent once per job, `AWAITING_AFTER_MS` after it began). */
  | { readonly type: 'awaiting' }
  | { readonly type: 'log'; readonly line: string }
  /** A `preprocess` job's preprocessor returned: the arguments its entrypoint gets, as JSON. */
  | { readonly type: 'preprocessed'; readonly json: string }
  /** `json` is absent when the result was over `maxResultBytes`; `bytes` is its size. */
  | {
      readonly type: 'done';
      readonly ok: true;
      readonly json?: string;
      readonly bytes: number;
      readonly reusable: boolean;
      readonly keepsRun?: boolean;
    }
  | {
      readonly type: 'done';
      readonly ok: false;
      readonly error: JobFailure;
      readonly reusable: boolean;
      readonly keepsRun?: boolean;
    };
