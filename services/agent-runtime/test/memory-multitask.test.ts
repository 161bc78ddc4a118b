import { randomBytes, randomUUID } from 'node:crypto';
import {
  createMemoryClient,
  createOrchestratorJobsClient,
  createRegistryItemsClient,
  isTerminalJobStatus,
  type MultitaskStrategy,
  type OrchestratorJobsClient,
} from '@flowmesh/contracts';
import { connectMesh, MeshClient, type MeshConnection } from '@flowmesh/messaging';
import {
  saveFakeOpenAIProvider,
  startFakeOpenAI,
  startMesh,
  startOwnProcess,
  waitFor,
  type FakeOpenAI,
  type OwnProcess,
  type TestMesh,
} from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const OPENAI_KEY = `sk-turns-${randomBytes(12).toString('hex')}`;
const PROVIDER = { kind: 'openai', resource: '$res:f/ai/openai', model: 'gpt-4o-mini' };
// Steps' leases (and their memory tickets'): short, so a parked step is seen to outlive it.
const LEASE_MS = 5_000;

/** A tool that takes a moment: the step holding the memory is still running when the next run asks. */
const napTool = {
  id: 'nap',
  summary: 'nap',
  description: 'Takes a moment',
  value: {
    tool_type: 'flowmodule',
    type: 'rawscript',
    language: 'bun',
    content:
      'export async function main() { await new Promise((r) => setTimeout(r, 1500)); return "rested"; }',
    input_transforms: {},
  },
};

/** The chat step of every flow here: a window memory under the run's memory id, one nap a turn. */
const chatStep = {
  id: 'agent',
  value: {
    type: 'aiagent',
    input_transforms: {
      provider: { type: 'static', value: PROVIDER },
      user_message: { type: 'javascript', expr: 'flow_input.say' },
      memory: { type: 'static', value: { kind: 'window', context_length: 1000 } },
    },
    tools: [napTool],
  },
};

interface SentMessage {
  role: string;
  content?: string | null;
}

/**
 * The model of every run: asked with this run's user message last, it naps; told the nap's result,
 * it answers `noted: <the message>`. Each exchange is then 4 messages, whichever run made it.
 */
function answer(request: { body: unknown }) {
  const messages = (request.body as { messages: SentMessage[] }).messages;
  const said = messages.findLast((message) => message.role === 'user')?.content ?? '';
  if (messages.at(-1)?.role === 'tool') return { text: `noted: ${said}` };
  return { toolCalls: [{ name: 'nap', arguments: '{}' }] };
}

// Runs on one memory id at once, through the whole mesh (the orchestrator hands the steps to
// agent-runtime, which takes turns at the memory in memory-service), with the OpenAI fake.
describe('agent-runtime: runs on one memory id take turns (multitask_strategy)', () => {
  let mesh: TestMesh;
  // Started apart, to be killed.
  let runtime: OwnProcess;
  const runtimeEnv = {
    // Two slots: steps waiting for the memory hold none, so the last run is never starved.
    FLOWMESH_AGENT_MAX_RUNS: '2',
    FLOWMESH_AGENT_LEASE_MS: String(LEASE_MS),
    // The OpenAI fake listens on loopback.
    FLOWMESH_OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
    LOG_LEVEL: 'warn',
  };
  let conn: MeshConnection;
  let client: MeshClient;
  let jobs: OrchestratorJobsClient;
  let fake: FakeOpenAI;
  const actor = { token: `fm_turns_${randomBytes(24).toString('base64url')}` };
  const inMain = { actor, workspace: 'main' };

  const ended = (id: string) =>
    waitFor(
      async () => {
        const job = await jobs.get({ ...inMain, id });
        return isTerminalJobStatus(job.status) ? job : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 100, description: `flow ${id} to end` },
    );
  const start = async (path: string, memoryId: string, say: string, strategy?: MultitaskStrategy) =>
    (
      await jobs.runFlow({
        ...inMain,
        path,
        memory_id: memoryId,
        args: { say },
        ...(strategy ? { multitask_strategy: strategy } : {}),
      })
    ).job_id;
  const stepJob = async (flowId: string) =>
    waitFor(
      async () => (await jobs.get({ ...inMain, id: flowId })).flow_status?.modules[0]?.job ?? undefined,
      {
        timeoutMs: 30_000,
        description: `the step of ${flowId} to start`,
      },
    );
  const logOf = async (flowId: string) => (await jobs.logs({ ...inMain, id: await stepJob(flowId) })).logs;
  /** The stored memory, as the user texts of its exchanges, after checking each is whole. */
  const exchanges = async (path: string, memoryId: string) => {
    const { messages } = await createMemoryClient(client).load({
      ...inMain,
      flowPath: path,
      memoryKey: memoryId,
      stepId: 'agent',
    });
    expect(messages.length % 4).toBe(0);
    const said: string[] = [];
    for (let i = 0; i < messages.length; i += 4) {
      const [user, calls, tool, reply] = messages.slice(i, i + 4);
      const text = (message: unknown) =>
        (message as { content: Array<{ text?: string }> }).content.map((part) => part.text ?? '').join('');
      expect(user?.role).toBe('user');
      expect(calls?.role).toBe('assistant');
      expect(tool?.role).toBe('tool');
      expect(reply?.role).toBe('assistant');
      expect(text(reply)).toBe(`noted: ${text(user)}`);
      said.push(text(user));
    }
    return said;
  };
  /** The history each run's first model call carried before its own message: what it loaded. */
  const loadedBefore = (say: string) => {
    const first = fake.chatRequests().find((request) => {
      const messages = (request.body as { messages: SentMessage[] }).messages;
      return messages.at(-1)?.role === 'user' && messages.at(-1)?.content === say;
    });
    const messages = (first!.body as { messages: SentMessage[] }).messages;
    return messages
      .filter((message) => message.role === 'user')
      .map((message) => message.content)
      .slice(0, -1);
  };

  /** Resolves once the run that said `say` holds the memory: its step asked the model. */
  const holding = (say: string) =>
    waitFor(() => fake.chatRequests().some((r) => JSON.stringify(r.body).includes(say)) || undefined, {
      timeoutMs: 30_000,
      description: `the run saying "${say}" to hold the memory`,
    });

  beforeAll(async () => {
    fake = await startFakeOpenAI({ apiKey: OPENAI_KEY });
    fake.setDefaultReply(answer);
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
        // The OpenAI fake listens on loopback.
        FLOWMESH_OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
        LOG_LEVEL: 'warn',
      },
    });
    runtime = await startOwnProcess(mesh, 'agent-runtime', runtimeEnv);
    conn = await connectMesh({
      url: mesh.env.NATS_URL,
      name: 'turns-test',
      prefix: mesh.env.FLOWMESH_SUBJECT_PREFIX,
    });
    client = new MeshClient(conn);
    jobs = createOrchestratorJobsClient(client);
    await saveFakeOpenAIProvider(client, inMain, fake, OPENAI_KEY);
    const items = createRegistryItemsClient(client);
    for (const [path, strategy] of [
      ['f/ai/chat_enqueue', undefined],
      ['f/ai/chat_reject', 'reject'],
      ['f/ai/chat_interrupt', 'interrupt'],
    ] as const)
      await items.createFlow({
        ...inMain,
        path,
        summary: path,
        value: { ...(strategy ? { multitask_strategy: strategy } : {}), modules: [chatStep] },
      });
    // Its nap needs approval: the step parks on it, holding its memory.
    const gated = {
      ...chatStep,
      value: { ...chatStep.value, tools: [{ ...napTool, requires_approval: true }] },
    };
    await items.createFlow({
      ...inMain,
      path: 'f/ai/chat_gated',
      summary: 'gated',
      value: { modules: [gated] },
    });
  }, 180_000);

  afterAll(async () => {
    await conn?.drain().catch(() => undefined);
    await runtime?.stop();
    await mesh?.stop();
    await fake?.close();
  }, 180_000);

  it('enqueue (the default): 4 runs at once on one memory id each wait their turn; every exchange is kept, in order', async () => {
    const memoryId = `conv-${randomUUID()}`;
    const says = ['m1', 'm2', 'm3', 'm4'].map((say) => `${say} ${memoryId}`);
    const flows = await Promise.all(says.map((say) => start('f/ai/chat_enqueue', memoryId, say)));
    const runs = await Promise.all(flows.map(ended));
    for (const run of runs) expect(run.status, JSON.stringify(run.result)).toBe('completed');

    const stored = await exchanges('f/ai/chat_enqueue', memoryId);
    expect([...stored].sort()).toEqual([...says].sort());
    // Each run loaded the memory with every earlier exchange in it, in the order they were saved.
    stored.forEach((say, i) => expect(loadedBefore(say)).toEqual(stored.slice(0, i)));
    // They did overlap: all but the first waited, and said so in their step's log.
    const waited = await Promise.all(
      flows.map(async (flow) => (await logOf(flow)).includes('waits its turn')),
    );
    expect(waited.filter(Boolean).length).toBeGreaterThanOrEqual(1);
  });

  it('reject: a second run while the first holds the memory fails at once, naming the memory and the strategy; the first keeps its exchange', async () => {
    const memoryId = `conv-${randomUUID()}`;
    const [firstSay, secondSay, thirdSay] = ['first', 'second', 'third'].map((say) => `${say} ${memoryId}`);
    const first = await start('f/ai/chat_reject', memoryId, firstSay);
    // The first holds the memory once its step asked the model (it naps meanwhile).
    await holding(firstSay);
    const second = await ended(await start('f/ai/chat_reject', memoryId, secondSay));
    expect(second.status).toBe('failed');
    const error = (second.result as { error: { name: string; message: string; fault: string } }).error;
    expect(error).toMatchObject({ name: 'MemoryInUse', fault: 'user' });
    expect(error.message).toContain(`memory ${memoryId}`);
    expect(error.message).toContain('multitask_strategy is reject');
    expect(error.message).toContain(first);
    expect((await ended(first)).status).toBe('completed');
    expect(await exchanges('f/ai/chat_reject', memoryId)).toEqual([firstSay]);
    // Free again: the next run goes.
    expect((await ended(await start('f/ai/chat_reject', memoryId, thirdSay))).status).toBe('completed');
    expect(await exchanges('f/ai/chat_reject', memoryId)).toEqual([firstSay, thirdSay]);
  });

  it('interrupt: a second run cancels the first, as a user cancel would, and keeps its own exchange', async () => {
    const memoryId = `conv-${randomUUID()}`;
    const [firstSay, secondSay] = ['first', 'second'].map((say) => `${say} ${memoryId}`);
    const first = await start('f/ai/chat_interrupt', memoryId, firstSay);
    await holding(firstSay);
    const secondId = await start('f/ai/chat_interrupt', memoryId, secondSay);
    const cancelled = await ended(first);
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.canceled_reason).toContain(`interrupted by run ${secondId}`);
    expect((await ended(secondId)).status).toBe('completed');
    expect(await exchanges('f/ai/chat_interrupt', memoryId)).toEqual([secondSay]);
    expect(await logOf(secondId)).toContain(`multitask_strategy interrupt: run ${first}`);
  });

  it('a run overrides its flow: enqueue on a reject flow waits instead of failing', async () => {
    const memoryId = `conv-${randomUUID()}`;
    const says = ['first', 'second'].map((say) => `${say} ${memoryId}`);
    const first = await start('f/ai/chat_reject', memoryId, says[0]);
    await holding(says[0]);
    const second = await start('f/ai/chat_reject', memoryId, says[1], 'enqueue');
    const runs = [await ended(first), await ended(second)];
    for (const run of runs) expect(run.status, JSON.stringify(run.result)).toBe('completed');
    expect([...(await exchanges('f/ai/chat_reject', memoryId))].sort()).toEqual(says);
  });

  it('a step parked on an approval keeps its memory: a run on it waits until the parked one is answered and saved, then sees its exchange', async () => {
    const memoryId = `conv-${randomUUID()}`;
    const [firstSay, secondSay] = ['first', 'second'].map((say) => `${say} ${memoryId}`);
    /** The flow's agent step once it is parked on the nap's approval. */
    const parked = (flowId: string) =>
      waitFor(
        async () => {
          const step = await jobs.get({ ...inMain, id: await stepJob(flowId) });
          return step.status === 'suspended' ? step : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 100, description: `the agent step of ${flowId} to park` },
      );
    const approve = async (stepId: string) => {
      const response = await fetch(
        `${mesh.urls['flow-orchestrator']}/api/w/main/jobs/flow/resume/${stepId}?approve=true`,
        {
          method: 'POST',
          headers: { authorization: `Bearer ${actor.token}`, 'content-type': 'application/json' },
          body: '{}',
        },
      );
      expect(response.status).toBe(200);
    };
    const first = await start('f/ai/chat_gated', memoryId, firstSay);
    const firstStep = await parked(first);
    const second = await start('f/ai/chat_gated', memoryId, secondSay);
    await waitFor(async () => (await logOf(second)).includes(`in use by run ${first}`) || undefined, {
      timeoutMs: 30_000,
      description: 'the second run to wait for the parked one',
    });
    // Past a lease: the parked step's ticket lasts until its approval's deadline, not a lease.
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS + 2_000));
    expect(await logOf(second)).not.toContain('is free');
    // Still waiting: the model was never asked for the second run.
    expect(JSON.stringify(fake.chatRequests().map((r) => r.body))).not.toContain(secondSay);
    await approve(firstStep.id);
    expect((await ended(first)).status).toBe('completed');
    await approve((await parked(second)).id);
    expect((await ended(second)).status).toBe('completed');
    expect(await exchanges('f/ai/chat_gated', memoryId)).toEqual([firstSay, secondSay]);
    expect(loadedBefore(secondSay)).toEqual([firstSay]);
  });

  it('kill -9 of agent-runtime while one run holds the memory and another waits for it: both are taken over, both exchanges kept', async () => {
    const memoryId = `conv-${randomUUID()}`;
    const [firstSay, secondSay] = ['first', 'second'].map((say) => `${say} ${memoryId}`);
    const first = await start('f/ai/chat_enqueue', memoryId, firstSay);
    await holding(firstSay);
    const second = await start('f/ai/chat_enqueue', memoryId, secondSay);
    await waitFor(async () => (await logOf(second)).includes(`in use by run ${first}`) || undefined, {
      timeoutMs: 30_000,
      description: 'the second run to wait for the first',
    });
    await runtime.kill();
    runtime = await startOwnProcess(mesh, 'agent-runtime', runtimeEnv);
    // The new replica takes both steps over once their leases ran out; they take turns again.
    const runs = [await ended(first), await ended(second)];
    for (const run of runs) expect(run.status, JSON.stringify(run.result)).toBe('completed');
    expect([...(await exchanges('f/ai/chat_enqueue', memoryId))].sort()).toEqual([firstSay, secondSay]);
  });

  it('a ticket left by a holder that died (it never renews nor releases) runs out with its lease; the waiting run then goes', async () => {
    const memoryId = `conv-${randomUUID()}`;
    // A holder as agent-runtime would take it, then gone: no renewal, no release.
    const memory = createMemoryClient(client);
    const dead = { jobId: randomUUID(), rootJob: randomUUID() };
    const taken = await memory.acquireLock({
      ...inMain,
      flowPath: 'f/ai/chat_enqueue',
      memoryKey: memoryId,
      stepId: 'agent',
      ...dead,
      strategy: 'enqueue',
      leaseMs: 3_000,
    });
    expect(taken.status).toBe('held');
    const flow = await start('f/ai/chat_enqueue', memoryId, 'after the dead one');
    await waitFor(async () => (await logOf(flow)).includes(`in use by run ${dead.rootJob}`) || undefined, {
      timeoutMs: 30_000,
      description: 'the run to wait for the dead holder',
    });
    const run = await ended(flow);
    expect(run.status).toBe('completed');
    expect(await exchanges('f/ai/chat_enqueue', memoryId)).toEqual(['after the dead one']);
    // The dead holder's save, had it woken up, is refused: it no longer holds the memory.
    await expect(
      memory.save({
        ...inMain,
        flowPath: 'f/ai/chat_enqueue',
        memoryKey: memoryId,
        stepId: 'agent',
        mode: 'window',
        heldBy: dead.jobId,
        messages: [],
      }),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
  });
});
