import { isTerminalJobStatus, type FlowStatusModule } from '@flowmesh/contracts';
import type { JobRecord } from '../../store/job.record.js';
import type { ChildOutcome } from '../module-outcome.js';

/** A child job that ended, as the outcome its parent reads. */
export function childOutcomeOf(record: JobRecord): ChildOutcome {
  return {
    kind: 'done',
    success: record.status === 'completed',
    result: record.result ?? null,
    ...(record.runtime.stopped ? { stop: record.runtime.stopped } : {}),
    record,
  };
}

export function isEnded(record: JobRecord | undefined): boolean {
  return record !== undefined && isTerminalJobStatus(record.status);
}

/** Records an ended child in a module status: its success and its timing, at its position. */
export function recordChildEnd(status: FlowStatusModule, position: number, record: JobRecord): void {
  const successes = (status.flow_jobs_success ??= []);
  while (successes.length <= position) successes.push(false);
  successes[position] = record.status === 'completed';
  const durations = (status.flow_jobs_duration ??= { started_at: [], duration_ms: [] });
  const startedAt = (durations.started_at ??= []);
  const durationMs = (durations.duration_ms ??= []);
  while (startedAt.length <= position) startedAt.push('');
  while (durationMs.length <= position) durationMs.push(0);
  startedAt[position] = (record.started_at ?? record.created_at).toISOString();
  durationMs[position] = record.duration_ms ?? 0;
}

/** Runs `work` for each item, at most `limit` at a time, in order of start. */
export async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) {
      const item = items[next++];
      await work(item);
    }
  });
  await Promise.all(lanes);
}
