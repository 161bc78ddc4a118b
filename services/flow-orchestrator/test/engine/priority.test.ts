import type { Job } from '@flowmesh/contracts';
import { waitFor } from '@flowmesh/testing';
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
/**
 * Holds the default lane's only slot until the test cancels it: the step's ten minutes are far
 * past any test, so nothing queued behind it in that lane can start meanwhile.
 */
const HOLD_MS = 600_000;

describe('priority across the work queue', () => {
  let mesh: EngineMesh;
  beforeAll(async () => {
    // One slot per lane: runs of the default lane go one after the other.
    mesh = await startEngineMesh({ workerEnv: { FLOWMESH_WORKER_CONCURRENCY: '1' } });
  }, 180_000);
  afterAll(async () => {
    await mesh?.stop();
  });

  /**
   * A run holding the default lane's slot, then a backlog queued behind it. The priority run is
   * queued after them all; whatever the load, it can only end before the backlog starts if it
   * did not wait behind it (in one lane it would wait for the holder, which never ends by itself).
   */
  const holdTheLane = async (backlogSize: number) => {
    const holder = await mesh.startFlow(waiting(HOLD_MS));
    await waitFor(async () => (await mesh.get(holder)).status === 'running', {
      description: 'the holder to take the default lane',
    });
    const backlog: string[] = [];
    for (let i = 0; i < backlogSize; i++) backlog.push(await mesh.startFlow(waiting(0)));
    return { holder, backlog };
  };
  /** Lets the lane go: the holder is cancelled, and the backlog runs to the end. */
  const release = async ({ holder, backlog }: { holder: string; backlog: string[] }) => {
    await mesh.jobs.cancel({ actor: mesh.admin, workspace: 'main', id: holder, reason: 'test done' });
    const ended = await Promise.all(backlog.map((id) => mesh.waitEnded(id, 60_000)));
    expect(ended.map((job) => [job.status, job.result])).toEqual(backlog.map(() => ['completed', 0]));
  };
  const notStarted = (job: Job) => [job.status, job.started_at];

  it('a run with a priority above 0 is taken before the next run of the backlog of its tag', async () => {
    const lane = await holdTheLane(3);
    try {
      const urgentJob = await mesh.waitEnded(await mesh.startFlow(waiting(0, { priority: 10 })), 60_000);
      expect([urgentJob.status, urgentJob.result, urgentJob.priority]).toEqual(['completed', 0, 10]);
      // It ended while the holder still had the lane, and no run of the backlog had started.
      expect((await mesh.get(lane.holder)).status).toBe('running');
      const backlog = await Promise.all(lane.backlog.map((id) => mesh.get(id)));
      expect(backlog.map(notStarted)).toEqual(backlog.map(() => ['queued', null]));
    } finally {
      await release(lane);
    }
  }, 120_000);

  it('keeps its lane when a timer wakes it (a step with sleep parks the run)', async () => {
    const lane = await holdTheLane(3);
    try {
      const sleeper = waiting(0, { priority: 3 });
      (sleeper.modules[0] as Record<string, unknown>).sleep = { type: 'static', value: 1 };
      const urgentJob = await mesh.waitEnded(await mesh.startFlow(sleeper), 60_000);
      expect(urgentJob.status).toBe('completed');
      // Woken after its sleep, it went on in its own lane: the default one was still held.
      expect((await mesh.get(lane.holder)).status).toBe('running');
      const backlog = await Promise.all(lane.backlog.map((id) => mesh.get(id)));
      expect(backlog.map(notStarted)).toEqual(backlog.map(() => ['queued', null]));
    } finally {
      await release(lane);
    }
  }, 120_000);
});
