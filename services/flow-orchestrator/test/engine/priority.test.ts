import type { Job } from '@flowmesh/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngineMesh, type EngineMesh } from '../support/engine-mesh.js';

/** A flow of one TypeScript step that waits `ms` (a timer: it holds its run's slot, not a core). */
const waiting = (ms: number, extra: Record<string, unknown> = {}) => ({
  modules: [
    {
      id: 'wait',
      value: {
        type: 'rawscript',
        language: 'bun',
        content: `export async function main() { await new Promise((resolve) => setTimeout(resolve, ${ms})); return ${ms}; }`,
        input_transforms: {},
      },
    },
  ],
  ...extra,
});
const endedAt = (job: Job) => new Date(job.completed_at!).getTime();

describe('priority across the work queue', () => {
  let mesh: EngineMesh;
  beforeAll(async () => {
    // One slot per lane: runs of the default lane go one after the other.
    mesh = await startEngineMesh({ workerEnv: { FLOWMESH_WORKER_CONCURRENCY: '1' } });
  }, 60_000);
  afterAll(async () => {
    await mesh?.stop();
  });

  it('a run with a priority above 0 does not wait behind the backlog of its tag', async () => {
    const backlog: string[] = [];
    for (let i = 0; i < 6; i++) backlog.push(await mesh.startFlow(waiting(400)));
    const urgent = await mesh.startFlow(waiting(400, { priority: 10 }));
    const [urgentJob, ...rest] = await Promise.all(
      [urgent, ...backlog].map((id) => mesh.waitEnded(id, 60_000)),
    );
    expect([urgentJob, ...rest].map((job) => [job.status, job.result])).toEqual(
      Array.from({ length: 7 }, () => ['completed', 400]),
    );
    expect(urgentJob.priority).toBe(10);
    // The backlog took its one slot in turn (~2.4 s); the urgent run, queued last, ended before
    // all but the first runs of it (without its lane it would have ended after all six).
    expect(rest.filter((job) => endedAt(job) < endedAt(urgentJob)).length).toBeLessThanOrEqual(2);
    const backlogEnds = rest.map(endedAt).sort((a, b) => a - b);
    expect(backlogEnds[5] - backlogEnds[0]).toBeGreaterThanOrEqual(1_900);
  });

  it('keeps its lane when a timer wakes it (a step with sleep parks the run)', async () => {
    const backlog: string[] = [];
    for (let i = 0; i < 8; i++) backlog.push(await mesh.startFlow(waiting(400)));
    const sleeper = waiting(400, { priority: 3 });
    (sleeper.modules[0] as Record<string, unknown>).sleep = { type: 'static', value: 1 };
    const urgent = await mesh.startFlow(sleeper);
    const [urgentJob, ...rest] = await Promise.all(
      [urgent, ...backlog].map((id) => mesh.waitEnded(id, 60_000)),
    );
    expect(urgentJob.status).toBe('completed');
    // Woken after 1 s, it went on at once instead of after the whole backlog (~3.2 s).
    expect(rest.filter((job) => endedAt(job) < endedAt(urgentJob)).length).toBeLessThanOrEqual(5);
  });
});
