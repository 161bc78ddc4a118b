import { defineWork, STREAMS } from '@flowmesh/contracts';
import { connectMesh, HandleWork, MeshClient, MeshTransport, type MeshConnection } from '@flowmesh/messaging';
import { natsServerInstalled, startOwnNatsServer, waitFor, type OwnNatsServer } from '@flowmesh/testing';
import { Controller, Module, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Payload } from '@nestjs/microservices';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

/**
 * A service's connection and transport across a restart of its NATS server (a test's own, killed
 * with SIGKILL): not ready while the server is away, one log line at the loss and one at the
 * return, and work taken again afterwards: from the same consumer when the server kept its
 * storage, from streams and consumers made again when it lost it.
 */
const runJob = defineWork('restart-run', z.object({ jobId: z.string() }));
const handled: string[] = [];

@Controller()
class Worker {
  @HandleWork(runJob, { tags: ['default'], durable: 'restart-runner', ackWaitMs: 5_000 })
  run(@Payload() job: { jobId: string }) {
    handled.push(job.jobId);
  }
}

@Module({ controllers: [Worker] })
class WorkerModule {}

describe.skipIf(!natsServerInstalled())('a NATS server restart', () => {
  let server: OwnNatsServer;
  let conn: MeshConnection;
  let producer: MeshConnection;
  let app: INestMicroservice;
  const said: string[] = [];

  beforeAll(async () => {
    server = await startOwnNatsServer();
    conn = await connectMesh({
      url: server.url,
      name: 'restart-worker',
      prefix: 'rs',
      outageLog: { warn: (line) => said.push(line), log: (line) => said.push(line) },
    });
    producer = await connectMesh({ url: server.url, name: 'restart-producer', prefix: 'rs' });
    app = await NestFactory.createMicroservice(WorkerModule, {
      strategy: new MeshTransport(conn, {
        service: 'restart-worker',
        shutdownGraceMs: 1_000,
        // On disk, so that a restart keeps them unless the storage is lost.
        streams: { storage: 'file', maxBytes: 8 * 1024 * 1024 },
      }),
      logger: false,
    });
    await app.listen();
  });

  afterAll(async () => {
    await app?.close().catch(() => undefined);
    await producer?.drain().catch(() => undefined);
    server?.stop();
  });

  /** Work enqueued now is handled (retried while the server finishes coming back). */
  async function workIsTaken(jobId: string): Promise<void> {
    const client = new MeshClient(producer);
    await waitFor(() => client.enqueueWork(runJob, 'default', { jobId }).then(() => true), {
      timeoutMs: 30_000,
      intervalMs: 250,
      description: `${jobId} to be enqueued`,
    });
    await waitFor(() => handled.includes(jobId), {
      timeoutMs: 30_000,
      description: `${jobId} to be handled`,
    });
  }

  async function restart(loseStorage: boolean): Promise<void> {
    const before = said.length;
    await server.kill({ loseStorage });
    await waitFor(() => conn.outages.notReadyReason(), { description: 'the connection to say it is lost' });
    expect(conn.outages.notReadyReason()).toMatch(/^NATS connection lost .* ago; reconnecting$/);
    await server.restart();
    await waitFor(() => conn.outages.ready, { timeoutMs: 30_000, description: 'the connection to be ready' });
    expect(said.slice(before)).toEqual([
      expect.stringMatching(/^NATS connection lost \(.*\); reconnecting, not ready until it is back/),
      expect.stringMatching(/^NATS connection back after \d+\.\d s/),
    ]);
  }

  it('with its storage kept: not ready meanwhile, said once each way, the consumer resumes', async () => {
    await workIsTaken('before');
    await restart(false);
    await workIsTaken('after-kept');
  });

  it('with its storage lost: the streams and the consumer are made again and work flows', async () => {
    await restart(true);
    const stream = await conn.jsm.streams.info(conn.space.streamName(STREAMS.work.name));
    expect(stream.config.storage).toBe('file');
    await workIsTaken('after-lost');
  });
});
