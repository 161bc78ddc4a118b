import { randomBytes } from 'node:crypto';
import {
  createOrchestratorJobsClient,
  createRegistryIdentityClient,
  createRegistryItemsClient,
  isTerminalJobStatus,
  jobEvents,
  type Job,
  type JobCompletedEvent,
  type JobStepCompletedEvent,
  type OrchestratorJobsClient,
} from '@flowmesh/contracts';
import { connectMesh, MeshClient, type MeshConnection } from '@flowmesh/messaging';
import {
  startFakeOpenAI,
  startMesh,
  startOwnProcess,
  waitFor,
  type FakeOpenAI,
  type OwnProcess,
  type TestMesh,
} from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const KEY = `sk-fault-${randomBytes(12).toString('hex')}`;

/**
 * Seed 001's fault classes end to end: an agent step calls the model through the llm-gateway (a
 * fake OpenAI behind it) with a key the provider refuses. On the user's own provider resource the
 * step's error (what users read) and the job events say `user` and name the resource whose key
 * to fix; on a platform-managed one they say `internal`.
 */
describe('agent-runtime: whose fault a failed agent step is', () => {
  let mesh: TestMesh;
  let runtime: OwnProcess;
  let conn: MeshConnection;
  let jobs: OrchestratorJobsClient;
  let fake: FakeOpenAI;
  let subscriptions: ReturnType<MeshConnection['nc']['subscribe']>[] = [];
  const stepEvents: JobStepCompletedEvent[] = [];
  const runEvents: JobCompletedEvent[] = [];
  const actor = { token: `fm_fault_${randomBytes(24).toString('base64url')}` };
  const inMain = { actor, workspace: 'main' };
  const output: string[] = [];

  beforeAll(async () => {
    fake = await startFakeOpenAI({ apiKey: KEY });
    mesh = await startMesh({
      processes: [
        'resource-registry',
        'flow-orchestrator',
        'flow-orchestrator-worker',
        'llm-gateway',
        'memory-service',
      ],
      env: {
        FLOWMESH_ADMIN_TOKEN: actor.token,
        FLOWMESH_ADMIN_EMAIL: 'admin@example.test',
        FLOWMESH_OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
        FLOWMESH_GATEWAY_MANAGED_PROVIDER_RESOURCES: 'f/platform/',
        LOG_LEVEL: 'warn',
      },
    });
    runtime = await startOwnProcess(
      mesh,
      'agent-runtime',
      { FLOWMESH_AGENT_MAX_RUNS: '1', LOG_LEVEL: 'info' },
      (line) => {
        output.push(line);
        if (output.length > 100) output.shift();
      },
    );
    conn = await connectMesh({
      url: mesh.env.NATS_URL,
      name: 'agent-fault-test',
      prefix: mesh.env.FLOWMESH_SUBJECT_PREFIX,
    });
    subscriptions = [
      conn.nc.subscribe(conn.space.subject(jobEvents.stepCompleted.subject), {
        callback: (_error, message) => stepEvents.push(jobEvents.stepCompleted.payload.parse(message.json())),
      }),
      conn.nc.subscribe(conn.space.subject(jobEvents.completed.subject), {
        callback: (_error, message) => runEvents.push(jobEvents.completed.payload.parse(message.json())),
      }),
    ];
    await conn.nc.flush();
    const client = new MeshClient(conn);
    jobs = createOrchestratorJobsClient(client);
    const identity = createRegistryIdentityClient(client);
    const items = createRegistryItemsClient(client);
    await Promise.all(['ai', 'platform'].map((name) => identity.createFolder({ ...inMain, name })));
    // A key the provider no longer takes, on the user's resource and on the platform's.
    await items.createVariable({
      ...inMain,
      path: 'f/ai/stale_key',
      value: 'sk-revoked-0123456789',
      is_secret: true,
    });
    for (const path of ['f/ai/openai', 'f/platform/openai'])
      await items.createResource({
        ...inMain,
        path,
        resource_type: 'openai',
        value: { base_url: `${fake.url}/v1`, api_key: '$var:f/ai/stale_key' },
      });
    // The mesh builds first when its build is stale (under load, minutes).
  }, 600_000);

  afterAll(async () => {
    for (const subscription of subscriptions) subscription.unsubscribe();
    await conn?.drain().catch(() => undefined);
    await runtime?.stop();
    await mesh?.stop();
    await fake?.close();
  }, 180_000);

  const run = async (resource: string): Promise<Job> => {
    const { job_id: id } = await jobs.runFlow({
      ...inMain,
      value: {
        modules: [
          {
            id: 'agent',
            value: {
              type: 'aiagent',
              input_transforms: {
                provider: {
                  type: 'static',
                  value: { kind: 'openai', resource: `$res:${resource}`, model: 'gpt-4o-mini' },
                },
                user_message: { type: 'static', value: 'hi' },
              },
            },
          },
        ],
      },
      args: {},
    });
    return waitFor(
      async () => {
        const job = await jobs.get({ ...inMain, id });
        return isTerminalJobStatus(job.status) ? job : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 100, description: `flow ${id} to end` },
    ).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}; agent-runtime said:\n${output.slice(-30).join('\n')}`);
    });
  };

  const eventsOf = (job: Job) =>
    waitFor(
      () => {
        const step = stepEvents.find((event) => event.job_id === job.id && event.step_id === 'agent');
        const ended = runEvents.find((event) => event.job_id === job.id);
        return step && ended ? { step, ended } : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 50, description: `the events of ${job.id}` },
    );

  it("a provider refusing the user's own key: the step's error and the job events say user, naming the resource to fix", async () => {
    const job = await run('f/ai/openai');
    expect(job.status).toBe('failed');
    const { error } = job.result as {
      error: { name: string; class: string; fault: string; message: string };
    };
    expect(error).toMatchObject({ name: 'AgentModelError', class: 'auth_failed', fault: 'user' });
    expect(error.message).toContain('fix the key of the provider resource f/ai/openai');
    expect(error.message).not.toContain('sk-revoked');
    const { step, ended } = await eventsOf(job);
    expect(step).toMatchObject({ success: false, fault: 'user' });
    expect(ended).toMatchObject({ success: false, fault: 'user' });
  });

  it('the same refusal on a platform-managed key is ours: internal, and no resource for the user to fix', async () => {
    const job = await run('f/platform/openai');
    expect(job.status).toBe('failed');
    const { error } = job.result as { error: { class: string; fault: string; message: string } };
    expect(error).toMatchObject({ class: 'auth_failed', fault: 'internal' });
    expect(error.message).not.toContain('fix the key');
    const { step, ended } = await eventsOf(job);
    expect(step).toMatchObject({ success: false, fault: 'internal' });
    expect(ended).toMatchObject({ success: false, fault: 'internal' });
  });
});
