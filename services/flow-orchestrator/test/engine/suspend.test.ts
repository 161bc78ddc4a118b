import type { Job } from '@flowmesh/contracts';
import { waitFor } from '@flowmesh/testing';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FlowDriver } from '../../src/engine/flow-driver.js';
import { LeaseStore } from '../../src/store/lease.store.js';
import { startEngineMesh, type EngineMesh } from '../support/engine-mesh.js';

/** A step that returns its inputs: `resume`, `resumes`, `approvers` (a loop of no modules over them). */
const echoResume = {
  id: 'after',
  value: {
    type: 'forloopflow',
    skip_failures: false,
    iterator: { type: 'javascript', expr: '[{ resume, resumes, approvers }]' },
    modules: [],
  },
};
const seen = (job: Job) => (job.result as Array<{ iter: { value: unknown } }>)[0].iter.value;

function suspended(suspend: Record<string, unknown>, after: Record<string, unknown> = echoResume) {
  return { modules: [{ id: 'ask', value: { type: 'identity' }, suspend }, after] };
}

describe('suspend (approvals)', () => {
  let mesh: EngineMesh;
  beforeAll(async () => {
    mesh = await startEngineMesh();
  }, 180_000);
  afterAll(async () => {
    await mesh?.stop();
  });

  const parked = (id: string) =>
    waitFor(async () => ((await mesh.get(id)).status === 'suspended' ? mesh.get(id) : undefined), {
      timeoutMs: 30_000,
      description: `job ${id} to suspend`,
    });
  const resume = (
    id: string,
    resumeId: number,
    approve: boolean,
    payload: unknown = {},
    approver = 'carol',
  ) =>
    mesh.jobs.resume({
      actor: mesh.admin,
      workspace: 'main',
      id,
      resume_id: resumeId,
      approve,
      payload,
      approver,
      authenticated: false,
    });

  it('parks the flow after the step without a worker; an approval resumes it, the next step sees resume, resumes and approvers', async () => {
    const id = await mesh.startFlow(suspended({ required_events: 1 }));
    const waiting = await parked(id);
    expect(waiting.flow_status!.modules[1]).toMatchObject({
      type: 'WaitingForEvents',
      id: 'after',
      count: 1,
      job: waiting.flow_status!.modules[0].job,
    });
    expect((await resume(id, 7, true, { comment: 'lgtm' })).outcome).toBe('resumed');
    const job = await mesh.waitEnded(id);
    expect(job.status).toBe('completed');
    expect(seen(job)).toEqual({
      resume: { comment: 'lgtm' },
      resumes: [{ comment: 'lgtm' }],
      approvers: ['carol'],
    });
    expect(job.flow_status!.modules[0].approvers).toEqual([{ resume_id: 7, approver: 'carol' }]);
  });

  it('required_events: two approvals are needed', async () => {
    const id = await mesh.startFlow(suspended({ required_events: 2 }));
    await parked(id);
    expect((await resume(id, 1, true, { n: 1 }, 'ann')).outcome).toBe('waiting');
    expect((await mesh.get(id)).status).toBe('suspended');
    expect((await resume(id, 2, true, { n: 2 }, 'bob')).outcome).toBe('resumed');
    const job = await mesh.waitEnded(id);
    expect(seen(job)).toEqual({ resume: { n: 2 }, resumes: [{ n: 1 }, { n: 2 }], approvers: ['ann', 'bob'] });
  });

  it('an approval whose wake-up reaches the worker after the driver released the lease, but before it let go of the flow, still resumes it', async () => {
    const app = mesh.workers[0].running.app;
    const repository = app.get(LeaseStore, { strict: false });
    const driver = app.get(FlowDriver, { strict: false });
    const { release } = repository;
    const { driveFromMessage } = driver;
    let flowId: string | undefined;
    let messages = 0;
    let wakeHandled: () => void = () => undefined;
    const handled = new Promise<void>((resolve) => (wakeHandled = resolve));
    driver.driveFromMessage = async (jobId) => {
      const nth = jobId === flowId ? ++messages : 0;
      const answer = await driveFromMessage.call(driver, jobId);
      // The first message for the flow once it is known: the approval's wake-up.
      if (nth === 1) wakeHandled();
      return answer;
    };
    let raced = false;
    /** The wake-up was handled while the driver held on (it only pokes the driver, never waits for it). */
    let wokenWhileHeld = false;
    repository.release = async (jobId, owner, seenWakeSeq) => {
      const released = await release.call(repository, jobId, owner, seenWakeSeq);
      if (released && !raced && flowId === undefined) {
        raced = true;
        flowId = jobId;
        // Parked and released, the driver not yet gone: the approval and its work message land now.
        expect((await resume(jobId, 1, true, { late: true })).outcome).toBe('resumed');
        // Held until the wake-up is handled; bounded so that an engine that never handles it
        // fails the expectation below instead of leaving the driver stuck here.
        const giveUp = new AbortController();
        wokenWhileHeld = await Promise.race([
          handled.then(() => true),
          delay(60_000, false, { signal: giveUp.signal }).catch(() => false),
        ]);
        giveUp.abort();
      }
      return released;
    };
    try {
      const id = await mesh.startFlow(suspended({ required_events: 1 }));
      const job = await mesh.waitEnded(id, 90_000);
      expect([raced, flowId, wokenWhileHeld]).toEqual([true, id, true]);
      expect(messages).toBeGreaterThan(0);
      expect(job.status).toBe('completed');
      expect(seen(job)).toEqual({ resume: { late: true }, resumes: [{ late: true }], approvers: ['carol'] });
    } finally {
      repository.release = release;
      driver.driveFromMessage = driveFromMessage;
    }
  }, 120_000);

  it('a disapproval fails the flow with SuspendedDisapproved', async () => {
    const id = await mesh.startFlow(suspended({ required_events: 1 }));
    await parked(id);
    expect((await resume(id, 1, false)).outcome).toBe('cancelled');
    const job = await mesh.waitEnded(id);
    expect([job.status, job.result]).toEqual([
      'failed',
      { error: { name: 'SuspendedDisapproved', message: 'Disapproved by carol', step_id: 'after' } },
    ]);
  });

  it('the timeout fails it with SuspendedTimedOut', async () => {
    const job = await mesh.waitEnded(await mesh.startFlow(suspended({ required_events: 1, timeout: 1 })));
    expect(job.result).toMatchObject({
      error: { name: 'SuspendedTimedOut', message: 'Timed out waiting to be resumed' },
    });
  });

  it('continue_on_disapprove_timeout: a disapproval or the timeout lets the flow go on, the error as the last resume', async () => {
    const id = await mesh.startFlow(suspended({ required_events: 1, continue_on_disapprove_timeout: true }));
    await parked(id);
    await resume(id, 1, false);
    const disapproved = await mesh.waitEnded(id);
    expect(disapproved.status).toBe('completed');
    expect(seen(disapproved)).toMatchObject({
      resume: { error: { name: 'SuspendedDisapproved', message: 'Disapproved by carol' } },
    });
    const timedOut = await mesh.waitEnded(
      await mesh.startFlow(
        suspended({ required_events: 1, timeout: 1, continue_on_disapprove_timeout: true }),
      ),
    );
    expect(seen(timedOut)).toMatchObject({ resume: { error: { name: 'SuspendedTimedOut' } }, approvers: [] });
  });

  it('a suspend on the last step still waits before the flow ends', async () => {
    const id = await mesh.startFlow(
      { modules: [{ id: 'only', value: { type: 'identity' }, suspend: { required_events: 1 } }] },
      { x: 1 },
    );
    await parked(id);
    await resume(id, 1, true);
    expect((await mesh.waitEnded(id)).result).toEqual({ x: 1 });
  });
});
