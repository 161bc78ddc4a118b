import {
  meshInboxPrefix,
  ORCHESTRATOR_WORKER_DURABLE,
  pingContract,
  runJobWork,
  runStreamSubject,
  stepStreamSubject,
  STREAMS,
  type PingReply,
  type RunJobWork,
} from '@flowmesh/contracts';
import {
  connectMesh,
  ensureStreams,
  HandleRequest,
  HandleWork,
  meshNatsCredentials,
  MeshClient,
  MeshTransport,
  natsAuthorizationBlock,
  natsUrlWithCredentials,
  type MeshConnection,
} from '@flowmesh/messaging';
import {
  natsServerInstalled,
  startOwnNatsServer,
  TEST_STREAMS,
  uniqueTestId,
  waitFor,
  type OwnNatsServer,
} from '@flowmesh/testing';
import { Controller, Module, type INestMicroservice, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Payload } from '@nestjs/microservices';
import { AckPolicy } from '@nats-io/jetstream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const received: RunJobWork[] = [];

@Controller()
class RegistryPing {
  @HandleRequest(pingContract('resource-registry'))
  ping(): PingReply {
    return { service: 'resource-registry', version: 'test', instanceId: 'a', uptimeMs: 0, checks: {} };
  }
}

@Controller()
class Worker {
  @HandleWork(runJobWork, { tags: ['default'], durable: ORCHESTRATOR_WORKER_DURABLE })
  run(@Payload() job: RunJobWork) {
    received.push(job);
  }
}

// A nats-server of its own, configured with the users `flowmesh start` and the chart create
// (a process each, permissions derived from the contracts): what each may and may not do.
describe.skipIf(!natsServerInstalled())('NATS users of a mesh', () => {
  const prefix = uniqueTestId('auth');
  const users = meshNatsCredentials(prefix, (user) => `pw-${user}-${prefix}`);
  let server: OwnNatsServer;
  let serverUrl: string;
  const connections: MeshConnection[] = [];
  const apps: INestMicroservice[] = [];

  const urlOf = (user: string) => natsUrlWithCredentials(serverUrl, user, `pw-${user}-${prefix}`);
  const connectAs = async (user: string) => {
    const conn = await connectMesh({ url: urlOf(user), name: user, prefix });
    connections.push(conn);
    return conn;
  };
  const serveAs = async (user: string, controllers: Type[]) => {
    const conn = await connectAs(user);
    @Module({ controllers })
    class AppModule {}
    const app = await NestFactory.createMicroservice(AppModule, {
      strategy: new MeshTransport(conn, { service: user, shutdownGraceMs: 2_000, streams: TEST_STREAMS }),
      logger: process.env.MESH_TEST_LOGS ? ['log', 'warn', 'error'] : false,
    });
    await app.listen();
    apps.push(app);
  };

  beforeAll(async () => {
    server = await startOwnNatsServer({ config: natsAuthorizationBlock(users) });
    serverUrl = server.url;
  }, 60_000);

  afterAll(async () => {
    for (const app of apps) await app.close().catch(() => undefined);
    for (const conn of connections) await conn.drain().catch(() => undefined);
    server?.stop();
  });

  it('refuses a client without credentials, or with another user’s password', async () => {
    await expect(connectMesh({ url: serverUrl, name: 'anonymous', prefix })).rejects.toThrow(
      /Authorization Violation/i,
    );
    const wrong = natsUrlWithCredentials(serverUrl, 'resource-registry', `pw-llm-gateway-${prefix}`);
    await expect(connectMesh({ url: wrong, name: 'resource-registry', prefix })).rejects.toThrow(
      /Authorization Violation/i,
    );
  });

  it('lets a service subscribe neither to everything, nor to another’s requests, nor to another’s replies', async () => {
    const gateway = await connectAs('llm-gateway');
    const refused = [
      '>',
      `${prefix}.>`,
      // What carries API tokens and decrypted secrets: the registry's requests and its callers' replies.
      `${prefix}.registry.auth.authenticate`,
      `${prefix}.registry.>`,
      `${meshInboxPrefix(prefix, 'flow-orchestrator')}.>`,
      '_INBOX.>',
    ];
    for (const subject of refused) {
      await expect(subscriptionRefusal(gateway, subject), subject).resolves.toMatch(/permissions violation/i);
    }
  });

  it('lets the orchestrator ask the registry, each with its own credentials', async () => {
    await serveAs('resource-registry', [RegistryPing]);
    const orchestrator = await connectAs('flow-orchestrator');
    const reply = await new MeshClient(orchestrator).request(pingContract('resource-registry'), {});
    expect(reply.service).toBe('resource-registry');
  });

  it('lets the orchestrator enqueue work that its worker takes, and not another service', async () => {
    await serveAs('flow-orchestrator-worker', [Worker]);
    const orchestrator = await connectAs('flow-orchestrator');
    await new MeshClient(orchestrator).enqueueWork(runJobWork, 'default', { jobId: 'j1', workspace: 'main' });
    await waitFor(() => received.some((job) => job.jobId === 'j1'), {
      timeoutMs: 60_000,
      description: 'the worker to take the job',
    });

    // The gateway neither enqueues work nor reads the work queue.
    const gateway = await connectAs('llm-gateway');
    await expect(
      new MeshClient(gateway).enqueueWork(runJobWork, 'default', { jobId: 'j2', workspace: 'main' }),
    ).rejects.toThrow();
    await expect(
      gateway.jsm.consumers.add(gateway.space.streamName(STREAMS.work.name), {
        durable_name: 'snoop',
        ack_policy: AckPolicy.Explicit,
      }),
    ).rejects.toThrow();
  });

  it('lets agent-runtime say what a step streams and the orchestrator replay it, not the gateway', async () => {
    const agent = await connectAs('agent-runtime');
    await ensureStreams(agent, TEST_STREAMS);
    const runStreams = agent.space.streamName(STREAMS.runStreams.name);
    const step = agent.space.subject(stepStreamSubject('run1', 'step1'));
    // Core publish, kept by the stream; a replica taking the step over reads the last one back.
    agent.nc.publish(step, JSON.stringify({ seq: 0 }));
    await agent.nc.flush();
    await waitFor(
      () => agent.jsm.streams.getMessage(runStreams, { last_by_subj: step }).catch(() => undefined),
      {
        timeoutMs: 30_000,
        description: 'the step stream to be stored',
      },
    );

    const orchestrator = await connectAs('flow-orchestrator');
    const replay = await orchestrator.js.consumers.get(runStreams, {
      filter_subjects: orchestrator.space.subject(runStreamSubject('run1')),
    });
    const first = await replay.next({ expires: 30_000 });
    expect(first?.subject).toBe(step);
    await replay.delete().catch(() => undefined);

    const gateway = await connectAs('llm-gateway');
    await expect(gateway.jsm.streams.getMessage(runStreams, { last_by_subj: step })).rejects.toThrow(
      /permissions violation/i,
    );
  });
});

/** The error the server answers a subscription with (the promise stays pending if it is allowed). */
function subscriptionRefusal(conn: MeshConnection, subject: string): Promise<string> {
  return new Promise((resolve) => {
    conn.nc.subscribe(subject, {
      callback: (error) => {
        if (error) resolve(error.message);
      },
    });
  });
}
