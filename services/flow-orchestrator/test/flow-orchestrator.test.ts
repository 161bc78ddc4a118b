import { randomUUID } from 'node:crypto';
import {
  DeadLetterSchema,
  MeshError,
  pingContract,
  runJobWork,
  workerPingContract,
  type DeadLetter,
} from '@flowmesh/contracts';
import { expectEventually, startTestService, type TestService } from '@flowmesh/testing';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import manifest from '../package.json' with { type: 'json' };
import { flowOrchestratorDefinition } from '../src/flow-orchestrator.definition.js';

describe('flow-orchestrator', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService(flowOrchestratorDefinition);
  });

  afterAll(async () => {
    await service?.stop();
  });

  it('answers its ping over NATS with its name, version and healthy dependencies', async () => {
    const reply = await service.client.request(pingContract('flow-orchestrator'), {});
    expect(reply).toMatchObject({
      service: 'flow-orchestrator',
      version: manifest.version,
      checks: { nats: 'up', postgres: 'up' },
    });
    expect(reply.uptimeMs).toBeGreaterThanOrEqual(0);
  });

  it('is ready over HTTP once NATS and Postgres answer, and names itself on every response', async () => {
    const ready = await fetch(`${service.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({
      status: 'ok',
      info: { nats: { status: 'up' }, postgres: { status: 'up' } },
    });
    const unknown = await fetch(`${service.url}/no-such-route`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('x-flowmesh-service')).toBe('flow-orchestrator');
  });

  it('migrated its own schema, "orchestrator", and nothing else', async () => {
    const rows: Array<{ schema: string }> = await service.running.app
      .get(DataSource)
      .query(
        `SELECT table_schema AS "schema" FROM information_schema.tables WHERE table_name = 'outbox_message'`,
      );
    expect(rows.map((row) => row.schema)).toEqual(['orchestrator']);
  });
});

const NO_SUCH_JOB = randomUUID();

describe('flow-orchestrator worker role', () => {
  let worker: TestService;

  beforeAll(async () => {
    worker = await startTestService(flowOrchestratorDefinition, {
      role: 'worker',
      env: { FLOWMESH_WORKER_TAGS: 'default, gpu' },
    });
  });

  afterAll(async () => {
    await worker?.stop();
  });

  it('answers a ping of its own, so status lists it as its own process', async () => {
    const reply = await worker.client.request(workerPingContract('flow-orchestrator'), {});
    expect(reply).toMatchObject({
      service: 'flow-orchestrator-worker',
      checks: { nats: 'up', postgres: 'up' },
    });
    await expect(
      worker.client.request(pingContract('flow-orchestrator'), {}, { timeoutMs: 500 }),
    ).rejects.toBeInstanceOf(MeshError);
  });

  it('takes jobs of each of its tags and dead-letters one it has no row for, with the reason', async () => {
    const deadLetters = worker.conn.nc.subscribe(worker.conn.space.subject('dlq.>'));
    const received: DeadLetter[] = [];
    void (async () => {
      for await (const message of deadLetters) received.push(DeadLetterSchema.parse(message.json()));
    })();

    await worker.client.enqueueWork(runJobWork, 'gpu', { jobId: 'job-gpu-1', workspace: 'main' });
    await worker.client.enqueueWork(runJobWork, 'default', { jobId: 'job-default-1', workspace: 'main' });
    // A message that says "script" for a job it does not name right goes the usual way all the same.
    await worker.client.enqueueWork(runJobWork, 'default', {
      jobId: NO_SUCH_JOB,
      workspace: 'main',
      script: true,
    });

    await expectEventually(() => expect(received).toHaveLength(3), { timeoutMs: 10_000 });
    deadLetters.unsubscribe();
    expect(received.map((letter) => [letter.subject, letter.reason.code]).sort()).toEqual([
      [worker.conn.space.subject('work.default.job'), 'NOT_FOUND'],
      [worker.conn.space.subject('work.default.job'), 'NOT_FOUND'],
      [worker.conn.space.subject('work.gpu.job'), 'NOT_FOUND'],
    ]);
    expect(received.map((letter) => letter.reason.message).sort()).toEqual(
      [
        'job job-default-1 not found in workspace main',
        `job ${NO_SUCH_JOB} not found in workspace main`,
        'job job-gpu-1 not found in workspace main',
      ].sort(),
    );
  });
});
