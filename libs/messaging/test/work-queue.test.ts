import {
  DeadLetterSchema,
  deadLetterSubject,
  defineWork,
  MeshError,
  STREAMS,
  workSubject,
} from '@flowmesh/contracts';
import { HandBackError, HandleWork, MeshClient, MeshContext } from '@flowmesh/messaging';
import { expectEventually, waitFor } from '@flowmesh/testing';
import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { gate, MeshFixture } from './support/mesh-fixture.js';

const JobSchema = z.object({
  jobId: z.string(),
  mode: z.enum(['hang', 'ok', 'flaky', 'reject', 'slow', 'long', 'handback']),
});
type Job = z.output<typeof JobSchema>;
const runJob = defineWork('run', JobSchema);

interface Delivery {
  instance: string;
  jobId: string;
  deliveryCount: number;
  at: number;
}
const deliveries: Delivery[] = [];
const hang = gate();
const slowJob = gate();

function record(instance: string, job: Job, ctx: MeshContext): void {
  deliveries.push({
    instance,
    jobId: job.jobId,
    deliveryCount: ctx.getDeliveryCount(),
    at: performance.now(),
  });
}

const workOptions = {
  tags: ['default'],
  durable: 'runner',
  ackWaitMs: 1_000,
  maxDeliver: 3,
  backoffMs: [150, 400],
};

@Controller()
class WorkerA {
  @HandleWork(runJob, workOptions)
  async run(@Payload() job: Job, @Ctx() ctx: MeshContext) {
    record('A', job, ctx);
    // Holds on until its transport stops taking work, then gives the message back.
    if (job.mode === 'handback') {
      await new Promise((resolve) => ctx.stopping?.addEventListener('abort', resolve, { once: true }));
      throw new HandBackError();
    }
    await handle(job);
  }
}

@Controller()
class WorkerB {
  @HandleWork(runJob, workOptions)
  async run(@Payload() job: Job, @Ctx() ctx: MeshContext) {
    record('B', job, ctx);
    await handle(job);
  }
}

async function handle(job: Job): Promise<void> {
  switch (job.mode) {
    case 'hang':
      return hang.promise;
    case 'slow':
      return slowJob.promise;
    case 'flaky':
      throw new Error('downstream refused the connection');
    case 'reject':
      throw new MeshError('UNSUPPORTED', 'language cobol is not served by tag default');
    case 'long':
      // A job that outlives ack_wait (1 s here) several times over: the time is the behaviour.
      return new Promise((resolve) => setTimeout(resolve, 2_500));
    case 'ok':
    case 'handback':
      return;
  }
}

const of = (jobId: string) => deliveries.filter((d) => d.jobId === jobId);

async function readDeadLetter(mesh: MeshFixture, jobId: string) {
  const conn = await mesh.connect('dlq-reader');
  const stream = mesh.space.streamName(STREAMS.deadLetters.name);
  const subject = mesh.space.subject(deadLetterSubject(STREAMS.work.name, 'runner-default'));
  return waitFor(
    async () => {
      const info = await conn.jsm.streams.info(stream, { subjects_filter: subject });
      for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
        const msg = await conn.jsm.streams.getMessage(stream, { seq }).catch(() => null);
        if (msg?.subject !== subject) continue;
        const letter = DeadLetterSchema.parse(msg.json());
        if (letter.payload.includes(jobId)) return letter;
      }
      return undefined;
    },
    { description: `the dead letter of ${jobId}` },
  );
}

describe('work queue: a delivery nobody settles', () => {
  let mesh: MeshFixture;
  let client: MeshClient;

  beforeAll(async () => {
    mesh = await MeshFixture.create('workdie');
    client = new MeshClient(await mesh.connect('producer'));
  });

  afterAll(async () => {
    hang.open();
    await mesh?.dispose();
  });

  it('a message not acked by a consumer that dies is redelivered to another', async () => {
    const a = await mesh.startApp([WorkerA], { shutdownGraceMs: 100 });
    await client.enqueueWork(runJob, 'default', { jobId: 'job-dies', mode: 'hang' });
    await waitFor(() => of('job-dies').length === 1, { description: 'worker A to take the job' });

    await mesh.startApp([WorkerB]);
    // Kill A the hard way: its connection vanishes mid-handler, no ack, no nak, no heartbeats.
    await a.conn.nc.close();

    await waitFor(() => of('job-dies').some((d) => d.instance === 'B'), {
      description: 'worker B to get the job',
    });
    expect(of('job-dies')).toEqual([
      expect.objectContaining({ instance: 'A', deliveryCount: 1 }),
      expect.objectContaining({ instance: 'B', deliveryCount: 2 }),
    ]);
    await a.app.close();
  });
});

describe('work queue: retries, dead letters, graceful close', () => {
  let mesh: MeshFixture;
  let client: MeshClient;

  beforeAll(async () => {
    mesh = await MeshFixture.create('work');
    client = new MeshClient(await mesh.connect('producer'));
    await mesh.startApp([WorkerB]);
  });

  afterAll(async () => {
    slowJob.open();
    await mesh?.dispose();
  });
  it('a failing handler is retried with backoff, then dead-lettered with the reason', async () => {
    const { seq } = await client.enqueueWork(runJob, 'default', { jobId: 'job-flaky', mode: 'flaky' });
    const letter = await readDeadLetter(mesh, 'job-flaky');

    const attempts = of('job-flaky');
    expect(attempts.map((d) => d.deliveryCount)).toEqual([1, 2, 3]);
    const [first, second, third] = attempts.map((d) => d.at) as [number, number, number];
    expect(second - first).toBeGreaterThanOrEqual(140);
    expect(third - second).toBeGreaterThanOrEqual(390);

    expect(letter).toMatchObject({
      reason: {
        code: 'INTERNAL',
        message: 'Error: downstream refused the connection (gave up after 3 deliveries)',
      },
      stream: mesh.space.streamName(STREAMS.work.name),
      durable: mesh.space.durableName('runner-default'),
      subject: mesh.space.subject(workSubject('default', 'run')),
      streamSequence: seq,
      deliveryCount: 3,
    });
    expect(JSON.parse(letter.payload)).toEqual({ jobId: 'job-flaky', mode: 'flaky' });
    // Terminated: the work-queue stream no longer holds it, and nothing redelivers it.
    await expectEventually(async () => expect(await mesh.streamMessages(STREAMS.work.name)).toBe(0));
    expect(of('job-flaky')).toHaveLength(3);
  });

  it('working() heartbeats keep a job longer than ack_wait from being redelivered', async () => {
    await client.enqueueWork(runJob, 'default', { jobId: 'job-long', mode: 'long' });
    await waitFor(() => of('job-long').length === 1, { description: 'the long job to start' });
    // Acked once it ends (2.5 s on): until then each heartbeat put off a redelivery.
    await expectEventually(async () => expect(await mesh.streamMessages(STREAMS.work.name)).toBe(0));
    expect(of('job-long')).toEqual([expect.objectContaining({ deliveryCount: 1 })]);
  });

  it('a permanent MeshError is dead-lettered at once, without retries', async () => {
    await client.enqueueWork(runJob, 'default', { jobId: 'job-reject', mode: 'reject' });
    const letter = await readDeadLetter(mesh, 'job-reject');
    expect(letter.reason).toEqual({
      code: 'UNSUPPORTED',
      message: 'language cobol is not served by tag default',
    });
    expect(letter.deliveryCount).toBe(1);
    expect(of('job-reject')).toHaveLength(1);
  });

  it('an invalid payload never reaches the handler and is dead-lettered with the path', async () => {
    const conn = await mesh.connect('raw-producer');
    await conn.js.publish(
      mesh.space.subject(workSubject('default', 'run')),
      JSON.stringify({ jobId: 'job-invalid', mode: 'dance' }),
    );
    const letter = await readDeadLetter(mesh, 'job-invalid');
    expect(letter.reason.code).toBe('VALIDATION_FAILED');
    expect(letter.reason.details).toEqual({ issues: [expect.objectContaining({ path: 'mode' })] });
    expect(of('job-invalid')).toHaveLength(0);
  });

  it('a payload with a lone UTF-16 surrogate is dead-lettered naming the field, never handled', async () => {
    const conn = await mesh.connect('raw-producer');
    await conn.js.publish(
      mesh.space.subject(workSubject('default', 'run')),
      JSON.stringify({ jobId: 'job-lone-\ud800', mode: 'ok' }),
    );
    const letter = await readDeadLetter(mesh, 'job-lone-');
    expect([letter.reason.code, letter.reason.details]).toEqual([
      'VALIDATION_FAILED',
      { issues: [{ path: 'jobId', message: expect.stringContaining('lone UTF-16 surrogate') as unknown }] },
    ]);
    expect(of('job-lone-\ud800')).toHaveLength(0);
  });

  it('closing the transport lets a running job finish and acks it', async () => {
    const fresh = await MeshFixture.create('workclose');
    const worker = await fresh.startApp([WorkerA], { shutdownGraceMs: 5_000 });
    await new MeshClient(await fresh.connect('producer')).enqueueWork(runJob, 'default', {
      jobId: 'job-slow',
      mode: 'slow',
    });
    await waitFor(() => of('job-slow').length === 1, { description: 'the slow job to start' });

    const closing = worker.app.close();
    slowJob.open();
    await closing;
    await expectEventually(async () => expect(await fresh.streamMessages(STREAMS.work.name)).toBe(0));
    expect(of('job-slow')).toHaveLength(1);
    await fresh.dispose();
  });

  it('a handler told its transport is closing hands its message back: another instance takes it', async () => {
    const fresh = await MeshFixture.create('workhandback');
    // A grace far beyond the test's time: the close ends because the handler gave up its message.
    const stopping = await fresh.startApp([WorkerA], { shutdownGraceMs: 600_000 });
    await new MeshClient(await fresh.connect('producer')).enqueueWork(runJob, 'default', {
      jobId: 'job-handback',
      mode: 'handback',
    });
    await waitFor(() => of('job-handback').length === 1, { description: 'worker A to take the job' });
    await fresh.startApp([WorkerB]);
    await stopping.app.close();
    await waitFor(() => of('job-handback').some((d) => d.instance === 'B'), {
      description: 'worker B to get the handed-back job',
    });
    expect(of('job-handback')).toEqual([
      expect.objectContaining({ instance: 'A', deliveryCount: 1 }),
      expect.objectContaining({ instance: 'B', deliveryCount: 2 }),
    ]);
    await expectEventually(async () => expect(await fresh.streamMessages(STREAMS.work.name)).toBe(0));
    await fresh.dispose();
  });
});
