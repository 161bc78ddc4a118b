import {
  createOrchestratorJobsClient,
  DeadLetterSchema,
  MeshError,
  runJobWork,
  type DeadLetter,
} from '@flowmesh/contracts';
import { expectEventually } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptStep, startRunApiMesh, type RunApiMesh } from './support/run-api-mesh.js';

// `orchestrator.job.wait_result`: a job's result answered when the job ends (no polling by the
// caller: agent-runtime waits for its tool jobs with it), as the caller may read it.
describe('orchestrator.job.wait_result', () => {
  let mesh: RunApiMesh;

  beforeAll(async () => {
    mesh = await startRunApiMesh();
  }, 120_000);

  afterAll(async () => {
    await mesh?.stop();
  });

  it('answers when the job ends, not before; at its timeout `completed` is false; others may not wait on it', async () => {
    const jobs = createOrchestratorJobsClient(mesh.registry.client);
    const alice = { actor: { token: mesh.tokens.alice }, workspace: 'main' };
    // The step waits for a file the test writes, so the job ends when the test says.
    const gate = `/tmp/fm-wait-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const { job_id: id } = await jobs.runFlow({
      ...alice,
      value: {
        modules: [
          scriptStep(
            'gated',
            `const { existsSync } = await import('node:fs');
             while (!existsSync(${JSON.stringify(gate)})) await new Promise((r) => setTimeout(r, 20));
             return 'opened';`,
          ),
        ],
      },
      args: {},
    });

    expect(await jobs.waitResult({ ...alice, id, timeout_ms: 0 })).toMatchObject({ completed: false });
    expect(await jobs.waitResult({ ...alice, id, timeout_ms: 300 })).toMatchObject({ completed: false });

    const waiting = jobs.waitResult({ ...alice, id, timeout_ms: 25_000 });
    const { writeFileSync } = await import('node:fs');
    writeFileSync(gate, '');
    expect(await waiting).toEqual({
      completed: true,
      success: true,
      result: 'opened',
      started: true,
      status: 'completed',
    });

    const bob = await jobs
      .waitResult({ actor: { token: mesh.tokens.bob }, workspace: 'main', id, timeout_ms: 0 })
      .catch((error: unknown) => error);
    expect(bob).toBeInstanceOf(MeshError);
    expect((bob as MeshError).code).toBe('NOT_FOUND');
    const tooLong = await jobs
      .waitResult({ ...alice, id, timeout_ms: 60_000 })
      .catch((error: unknown) => error);
    expect((tooLong as MeshError).code).toBe('VALIDATION_FAILED');
  }, 180_000);

  it('a work message that says "script" runs its job; one naming another workspace is refused as before', async () => {
    const jobs = createOrchestratorJobsClient(mesh.registry.client);
    const alice = { actor: { token: mesh.tokens.alice }, workspace: 'main' };
    // Scheduled an hour ahead: queued, and no message sent for it yet.
    const { job_id: id } = await jobs.runScript({
      ...alice,
      content: 'export function main() { return "ran"; }',
      language: 'bun',
      args: {},
      scheduled_for: new Date(Date.now() + 3_600_000).toISOString(),
    });
    const conn = mesh.registry.conn;
    const deadLetters = conn.nc.subscribe(conn.space.subject('dlq.>'));
    const received: DeadLetter[] = [];
    void (async () => {
      for await (const message of deadLetters) received.push(DeadLetterSchema.parse(message.json()));
    })();
    await mesh.registry.client.enqueueWork(runJobWork, 'default', {
      jobId: id,
      workspace: 'other',
      script: true,
    });
    await expectEventually(() => expect(received).toHaveLength(1), { timeoutMs: 10_000 });
    deadLetters.unsubscribe();
    expect(received[0].reason).toMatchObject({
      code: 'NOT_FOUND',
      message: `job ${id} not found in workspace other`,
    });
    expect(await jobs.waitResult({ ...alice, id, timeout_ms: 0 })).toMatchObject({
      completed: false,
      status: 'queued',
    });

    await mesh.registry.client.enqueueWork(runJobWork, 'default', {
      jobId: id,
      workspace: 'main',
      script: true,
    });
    expect(await jobs.waitResult({ ...alice, id, timeout_ms: 20_000 })).toMatchObject({
      completed: true,
      success: true,
      result: 'ran',
    });
  }, 60_000);
});
