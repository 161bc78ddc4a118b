import type { ThreadJobRequest, ThreadStats } from '../typescript/thread-jobs.js';

/** Messages between a worker and its thread sandbox process, over the IPC channel. */

export type SandboxInbound =
  | { readonly type: 'run'; readonly id: number; readonly request: ThreadJobRequest }
  | { readonly type: 'cancel'; readonly id: number }
  /** Stop the threads and exit. */
  | { readonly type: 'close' };

export interface SandboxJobFailure {
  readonly name: string;
  readonly message: string;
  readonly stack?: string;
}

export type SandboxOutbound =
  | { readonly type: 'ready' }
  /** The job has its thread: its time starts now. */
  | { readonly type: 'start'; readonly id: number }
  | { readonly type: 'log'; readonly id: number; readonly line: string }
  /** A `preprocess` job's preprocessor returned: its entrypoint's arguments. */
  | { readonly type: 'preprocessed'; readonly id: number; readonly args: Record<string, unknown> }
  | { readonly type: 'done'; readonly id: number; readonly json: string; readonly stats: ThreadStats }
  | {
      readonly type: 'failed';
      readonly id: number;
      readonly error: SandboxJobFailure;
      readonly stats: ThreadStats;
    };
