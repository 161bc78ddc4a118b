import { setTimeout as delay } from 'node:timers/promises';
import type { JobResultMaybe } from '@flowmesh/contracts';
import type { JobsApi } from './jobs-api.js';
import { StepProgress } from './step-progress.js';

export interface FollowOptions {
  /** Each step line as it happens. */
  readonly onLine: (line: string) => void;
  /** Poll interval bounds: quick at first (light flows end in milliseconds), slower for long runs. */
  readonly minIntervalMs?: number;
  readonly maxIntervalMs?: number;
  /** Give up (FollowTimeoutError) after this long; default: wait as long as the job runs. */
  readonly timeoutMs?: number;
}

export class FollowTimeoutError extends Error {}

/** Polls `getupdate` until the job ends, reporting each step, then reads its outcome. */
export async function followJob(
  api: JobsApi,
  jobId: string,
  options: FollowOptions,
): Promise<JobResultMaybe> {
  const progress = new StepProgress(jobId);
  const maxIntervalMs = options.maxIntervalMs ?? 500;
  let interval = options.minIntervalMs ?? 20;
  const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
  for (;;) {
    const update = await api.getUpdate(jobId, 0);
    for (const line of progress.linesFor(update.flow_status)) options.onLine(line);
    if (update.completed) return api.getResultMaybe(jobId);
    if (Date.now() >= deadline) {
      throw new FollowTimeoutError(`job ${jobId} did not complete within ${options.timeoutMs} ms`);
    }
    await delay(interval);
    interval = Math.min(maxIntervalMs, Math.ceil(interval * 1.5));
  }
}
