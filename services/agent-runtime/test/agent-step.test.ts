import { randomBytes } from 'node:crypto';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createOrchestratorJobsClient,
  createMemoryClient,
  createRegistryDraftsClient,
  createRegistryIdentityClient,
  createRegistryItemsClient,
  isTerminalJobStatus,
  type Job,
  type OrchestratorJobsClient,
} from '@flowmesh/contracts';
import { connectMesh, MeshClient, type MeshConnection } from '@flowmesh/messaging';
import {
  S3rverInstance,
  saveFakeOpenAIProvider,
  startFakeOpenAI,
  startFakeSystemOne,
  startMesh,
  runFlowmesh,
  startOwnProcess,
  waitFor,
  type FakeOpenAI,
  type FakeSystemOne,
  type OwnProcess,
  type TestMesh,
  scriptScratchDir,
} from '@flowmesh/testing';
import { createParser } from 'eventsource-parser';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEverythingServer, type EverythingServer } from './support/mcp-everything-server.js';
import { startMcpTestServer, type McpTestServer } from './support/mcp-test-server.js';

const OPENAI_KEY = `sk-agent-${randomBytes(12).toString('hex')}`;
const PROVIDER = { kind: 'openai', resource: '$res:f/ai/openai', model: 'gpt-4o-mini' };
// Long enough that a runtime alive under a loaded machine never loses a step's lease between two
// heartbeats (at 1.5 s one was taken over mid-run and its duplicate used a scripted reply meant for
// the next call); the kill -9 case waits for it once.
const LEASE_MS = 6_000;

/** A TypeScript tool the model fills `a` and `b` of. */
const addTool = {
  id: 'adder',
  summary: 'add',
  description: 'Adds two numbers',
  value: {
    tool_type: 'flowmodule',
    type: 'rawscript',
    language: 'bun',
    content: 'export function main(a: number, b: number) { return a + b; }',
    input_transforms: { a: { type: 'ai' }, b: { type: 'ai' } },
  },
};

const agentStep = (inputs: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  id: 'agent',
  value: {
    type: 'aiagent',
    input_transforms: { provider: { type: 'static', value: PROVIDER }, ...inputs },
    ...extra,
  },
});
const fixed = (value: unknown) => ({ type: 'static', value });

/** A TypeScript tool computing `n * factor + offset`, its inputs as the test binds them. */
const scaleTool = (inputs: Record<string, unknown>) => ({
  id: 'scaler',
  summary: 'scale',
  value: {
    tool_type: 'flowmodule',
    type: 'rawscript',
    language: 'bun',
    content:
      'export function main(n: number, factor: number, offset: number) { return n * factor + offset; }',
    input_transforms: inputs,
  },
});

/** A first step that takes `ms`: the run stream is live, so a test connects while it runs. */
const pauseStep = (ms: number) => ({
  id: 'pause',
  value: {
    type: 'rawscript',
    language: 'bun',
    content: `export async function main() { await new Promise((r) => setTimeout(r, ${ms})); return 1; }`,
    input_transforms: {},
  },
});

/** A chat request as the OpenAI-shaped fake got it. */
interface SentChat {
  model: string;
  messages: unknown[];
  tools?: { function: { name: string; parameters: unknown } }[];
}

// The whole path of an AI step: the orchestrator hands it to agent-runtime, which calls the model
// through the llm-gateway (an OpenAI-shaped fake behind it), runs the tools the model asks for as
// orchestrator jobs, keeps memory in memory-service and completes the step. Each process is its
// own OS process on the real NATS and Postgres; agent-runtime is started apart, to be killed.
describe('agent-runtime: aiagent steps end to end', () => {
  let mesh: TestMesh;
  let runtime: OwnProcess;
  let conn: MeshConnection;
  let jobs: OrchestratorJobsClient;
  let fake: FakeOpenAI;
  let s3: S3rverInstance;
  const actor = { token: `fm_agent_${randomBytes(24).toString('base64url')}` };
  const inMain = { actor, workspace: 'main' };
  const output: string[] = [];
  const keep = (line: string) => {
    output.push(line);
    if (output.length > 200) output.shift();
  };
  const runtimeEnv = {
    FLOWMESH_AGENT_LEASE_MS: String(LEASE_MS),
    FLOWMESH_AGENT_MAX_RUNS: '1',
    // The MCP test server listens on loopback; the metadata address stays refused.
    FLOWMESH_OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
    LOG_LEVEL: 'info',
  };

  const ended = (id: string) =>
    waitFor(
      async () => {
        const job = await jobs.get({ ...inMain, id });
        return isTerminalJobStatus(job.status) ? job : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 100, description: `flow ${id} to end` },
    ).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}; agent-runtime said:\n${output.slice(-30).join('\n')}`);
    });
  const run = async (modules: unknown[], args: Record<string, unknown> = {}): Promise<Job> =>
    ended((await jobs.runFlow({ ...inMain, value: { modules }, args })).job_id);

  beforeAll(async () => {
    fake = await startFakeOpenAI({ apiKey: OPENAI_KEY });
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
        LOG_LEVEL: 'warn',
      },
      // One HTTP base URL for the CLI (`flowmesh eval run` reads the registry and runs flows).
      entry: true,
    });
    // The mesh's object storage, where steps' attachments live.
    s3 = await S3rverInstance.start('flowmesh-test');
    Object.assign(runtimeEnv, s3.env);
    runtime = await startOwnProcess(mesh, 'agent-runtime', runtimeEnv, keep);
    conn = await connectMesh({
      url: mesh.env.NATS_URL,
      name: 'agent-test',
      prefix: mesh.env.FLOWMESH_SUBJECT_PREFIX,
    });
    const client = new MeshClient(conn);
    jobs = createOrchestratorJobsClient(client);
    await saveFakeOpenAIProvider(client, inMain, fake, OPENAI_KEY);
  }, 180_000);

  afterAll(async () => {
    await conn?.drain().catch(() => undefined);
    await runtime?.stop();
    await mesh?.stop();
    await fake?.close();
    await s3?.stop();
  }, 180_000);

  beforeEach(() => {
    fake.setDefaultReply(undefined);
  });

  /** A client of the mesh's object storage (s3rver), where steps' attachments live. */
  const objectStorage = () =>
    new S3Client({
      region: 'us-east-1',
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
  const putObject = async (key: string, body: Buffer, contentType: string) => {
    const storage = objectStorage();
    try {
      await storage.send(
        new PutObjectCommand({ Bucket: s3.bucket, Key: key, Body: body, ContentType: contentType }),
      );
    } finally {
      storage.destroy();
    }
  };

  /** The chat requests the fake got since `before`. */
  const sentSince = (before: number) =>
    fake
      .chatRequests()
      .slice(before)
      .map((request) => request.body as SentChat);

  it('runs the loop: the model calls a script tool, gets its result, answers; the actions are on the step', async () => {
    const before = fake.chatRequests().length;
    fake.reply(
      { toolCalls: [{ id: 'call_add', name: 'add', arguments: '{"a":2,"b":3}' }] },
      { text: 'The sum is 5.', usage: { prompt_tokens: 10, completion_tokens: 5, cached_tokens: 6 } },
    );
    const job = await run(
      [
        agentStep(
          {
            system_prompt: fixed('You add numbers with the add tool.'),
            user_message: { type: 'javascript', expr: "'Add 2 and ' + flow_input.b" },
          },
          { tools: [addTool] },
        ),
      ],
      { b: 3 },
    );
    expect(job.status, JSON.stringify(job.result)).toBe('completed');
    expect(job.result).toMatchObject({
      output: 'The sum is 5.',
      // Windmill's TokenUsage names, summed over both calls; no cache was written, so that is not named.
      usage: { input_tokens: 20, output_tokens: 10, total_tokens: 30, cache_read_input_tokens: 6 },
    });
    expect((job.result as { usage: object }).usage).not.toHaveProperty('cache_write_input_tokens');

    const [first, second] = fake
      .chatRequests()
      .slice(before)
      .map((request) => request.body as { model: string; messages: unknown[]; tools: unknown });
    expect(first.model).toBe('gpt-4o-mini');
    expect(first.messages).toEqual([
      { role: 'system', content: 'You add numbers with the add tool.' },
      { role: 'user', content: 'Add 2 and 3' },
    ]);
    expect(first.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'add',
          description: 'Adds two numbers',
          parameters: {
            type: 'object',
            properties: { a: { description: 'a' }, b: { description: 'b' } },
            required: ['a', 'b'],
            additionalProperties: false,
          },
        },
      },
    ]);
    // The tool ran as a job of the orchestrator; its result went back under the call's id.
    expect(second.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_add', content: '5' });

    const module = job.flow_status!.modules[0];
    expect(module.agent_actions).toEqual([
      { type: 'tool_call', job_id: expect.any(String) as unknown, function_name: 'add', module_id: 'adder' },
      { type: 'message', content: 'The sum is 5.' },
    ]);
    const toolJob = (module.agent_actions![0] as { job_id: string }).job_id;
    expect(await jobs.getResult({ ...inMain, id: toolJob })).toMatchObject({
      completed: true,
      success: true,
      result: 5,
    });
  });

  it("binds tools to the flow: javascript inputs (the tool's own and the step's tool_inputs) read flow_input and results; one that fails only fails its tool's calls", async () => {
    const before = fake.chatRequests().length;
    const scaled = scaleTool({
      n: { type: 'ai' },
      factor: { type: 'javascript', expr: 'flow_input.factor' },
      offset: fixed(0),
    });
    const broken = {
      id: 'broken',
      summary: 'broken',
      value: {
        ...scaled.value,
        input_transforms: {
          n: { type: 'ai' },
          factor: { type: 'javascript', expr: 'flow_input.nothing.deeper' },
          offset: fixed(0),
        },
      },
    };
    fake.reply(
      {
        toolCalls: [
          { id: 'call_scale', name: 'scale', arguments: '{"n":4}' },
          { id: 'call_broken', name: 'broken', arguments: '{"n":4}' },
        ],
      },
      { text: 'Scaled.' },
    );
    const job = await run(
      [
        {
          id: 'base',
          value: {
            type: 'rawscript',
            language: 'bun',
            content: 'export function main() { return 100; }',
            input_transforms: {},
          },
        },
        agentStep(
          { user_message: fixed('Scale 4.') },
          // The step binds the tool's offset to an earlier step's result.
          {
            tools: [scaled, broken],
            tool_inputs: { scaler: { offset: { type: 'javascript', expr: 'results.base' } } },
          },
        ),
      ],
      { factor: 3 },
    );
    expect(job.status, JSON.stringify(job.result)).toBe('completed');
    const [first, second] = sentSince(before);
    // The model fills only n: the flow fills the rest.
    expect(first.tools![0].function.parameters).toMatchObject({
      properties: { n: { description: 'n' } },
      required: ['n'],
    });
    expect(second.messages.slice(-2)).toEqual([
      { role: 'tool', tool_call_id: 'call_scale', content: '112' },
      {
        role: 'tool',
        tool_call_id: 'call_broken',
        content: expect.stringContaining('broken cannot run: factor:') as unknown,
      },
    ]);
  });

  /** Reads a run's server-sent events until the stream ends (`headers`: a reconnect's Last-Event-ID). */
  const readStream = async (runId: string, headers: Record<string, string> = {}, query = '') => {
    const response = await fetch(
      `${mesh.urls['flow-orchestrator']}/api/w/main/jobs_u/stream/${runId}${query}`,
      { headers: { authorization: `Bearer ${actor.token}`, ...headers } },
    );
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const events: { id?: string; event?: string; data: Record<string, unknown> }[] = [];
    const parser = createParser({
      onEvent: (message) =>
        events.push({
          id: message.id,
          event: message.event,
          data: JSON.parse(message.data) as Record<string, unknown>,
        }),
    });
    const decoder = new TextDecoder();
    for await (const chunk of response.body!)
      parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
    return events;
  };

  it('streaming: the run streams its deltas and tool runs as server-sent events until it ends', async () => {
    fake.reply(
      { toolCalls: [{ id: 'call_add', name: 'add', arguments: '{"a":2,"b":3}' }], deltaSize: 4 },
      { text: 'The sum is 5.', deltaSize: 3 },
    );
    // A first step that takes a moment: the reader usually connects before the agent starts
    // (one that connects later gets what was said first, as the reconnects below show).
    const pause = pauseStep(1000);
    const flowId = (
      await jobs.runFlow({
        ...inMain,
        value: {
          modules: [
            pause,
            agentStep({ user_message: fixed('Add 2 and 3.'), streaming: fixed(true) }, { tools: [addTool] }),
          ],
        },
      })
    ).job_id;
    const events = await readStream(flowId);

    expect(events.at(-1)).toEqual({ event: 'end', data: { status: 'completed', success: true } });
    const stepEvents = events
      .slice(0, -1)
      .map(
        (message) =>
          message.data as { seq: number; step_id: string; event: { type: string } & Record<string, unknown> },
      );
    expect(stepEvents.map((envelope) => envelope.seq)).toEqual(stepEvents.map((_, i) => i));
    expect(new Set(stepEvents.map((envelope) => envelope.step_id))).toEqual(new Set(['agent']));
    const of = (type: string) =>
      stepEvents.map((envelope) => envelope.event).filter((event) => event.type === type);
    expect(of('tool_call')).toEqual([{ type: 'tool_call', call_id: 'call_add', function_name: 'add' }]);
    expect(
      of('tool_call_arguments')
        .map((event) => event.arguments)
        .join(''),
    ).toBe('{"a":2,"b":3}');
    expect(of('tool_execution')).toEqual([
      { type: 'tool_execution', call_id: 'call_add', function_name: 'add' },
    ]);
    expect(of('tool_result')).toEqual([
      { type: 'tool_result', call_id: 'call_add', function_name: 'add', result: '5', success: true },
    ]);
    const deltas = of('token_delta').map((event) => event.content);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('The sum is 5.');
    // Each SSE event is named for its type.
    expect(
      events.slice(0, -1).every((message) => message.event === (message.data.event as { type: string }).type),
    ).toBe(true);

    // A reader who comes after the run ended still gets all of it, with the same offsets; one who
    // reconnects with the last offset it saw gets the rest, nothing twice (header or query).
    const late = await readStream(flowId);
    expect(late).toEqual(events);
    const offsets = events.slice(0, -1).map((message) => Number(message.id));
    expect(offsets.every((offset, i) => i === 0 || offset > offsets[i - 1])).toBe(true);
    const cut = 3;
    const rest = await readStream(flowId, { 'last-event-id': String(offsets[cut - 1]) });
    expect(rest).toEqual(events.slice(cut));
    expect(await readStream(flowId, {}, `?after=${offsets.at(-1)}`)).toEqual(events.slice(-1));
    const bad = await fetch(
      `${mesh.urls['flow-orchestrator']}/api/w/main/jobs_u/stream/${flowId}?after=soon`,
      {
        headers: { authorization: `Bearer ${actor.token}` },
      },
    );
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('must be a stream offset');
  });

  it('flowmesh jobs stream follows a run: the text as it comes on stdout, the tool calls on stderr', async () => {
    fake.reply(
      { toolCalls: [{ id: 'call_add', name: 'add', arguments: '{"a":2,"b":3}' }] },
      { text: 'The sum is 5.', deltaSize: 3 },
    );
    // The CLI may connect before the agent speaks or after: either way it prints all of it.
    const pause = pauseStep(1000);
    const { job_id: flowId } = await jobs.runFlow({
      ...inMain,
      value: {
        modules: [
          pause,
          agentStep({ user_message: fixed('Add 2 and 3.'), streaming: fixed(true) }, { tools: [addTool] }),
        ],
      },
    });
    const followed = await runFlowmesh(['jobs', 'stream', flowId], {
      env: { FLOWMESH_URL: mesh.urls['flow-orchestrator'], FLOWMESH_TOKEN: actor.token },
      timeoutMs: 60_000,
    });
    expect(followed.code).toBe(0);
    expect(followed.stdout).toBe('The sum is 5.\n');
    expect(followed.stderr).toBe('\n→ add\n✓ add\n');
  });

  it("a step linked to an ai_agent runs the agent's brain and tools; its tools' javascript inputs read the host flow", async () => {
    const items = createRegistryItemsClient(new MeshClient(conn));
    const scaled = scaleTool({
      n: { type: 'ai' },
      factor: { type: 'javascript', expr: 'flow_input.factor' },
      offset: fixed(0),
    });
    await items.createResource({
      ...inMain,
      path: 'f/ai/scaler_agent',
      resource_type: 'ai_agent',
      value: { provider: PROVIDER, system_prompt: 'You scale numbers.', tools: [scaled] },
    });
    const before = fake.chatRequests().length;
    fake.reply({ toolCalls: [{ id: 'call_s', name: 'scale', arguments: '{"n":4}' }] }, { text: 'It is 28.' });
    const job = await run(
      [
        {
          id: 'agent',
          value: {
            type: 'aiagent',
            agent: 'f/ai/scaler_agent',
            input_transforms: { user_message: fixed('Scale 4.') },
          },
        },
      ],
      { factor: 7 },
    );
    expect(job.status, JSON.stringify(job.result)).toBe('completed');
    const [first, second] = sentSince(before);
    expect(first.messages[0]).toEqual({ role: 'system', content: 'You scale numbers.' });
    expect(second.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_s', content: '28' });
  });

  it('a loop module is a tool too: the model gives its iterator, the loop runs as its own job, its results come back', async () => {
    const batch = {
      id: 'batch',
      summary: 'double_all',
      description: 'Doubles every number',
      value: {
        tool_type: 'flowmodule',
        type: 'forloopflow',
        iterator: { type: 'ai' },
        skip_failures: false,
        modules: [
          {
            id: 'double',
            value: {
              type: 'rawscript',
              language: 'bun',
              content: 'export function main(n: number) { return n * 2; }',
              input_transforms: { n: { type: 'javascript', expr: 'flow_input.iter.value' } },
            },
          },
        ],
      },
    };
    const before = fake.chatRequests().length;
    fake.reply(
      { toolCalls: [{ id: 'call_b', name: 'double_all', arguments: '{"iterator":[1,2,3]}' }] },
      { text: 'Doubled.' },
    );
    const job = await run([agentStep({ user_message: fixed('Double 1, 2 and 3.') }, { tools: [batch] })]);
    expect(job.status, JSON.stringify(job.result)).toBe('completed');
    const [first, second] = sentSince(before);
    expect(first.tools![0].function.parameters).toMatchObject({ required: ['iterator'] });
    expect(second.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_b', content: '[2,4,6]' });
  });

  it("a preview of agent drafts runs the caller's draft of a linked agent, read when the step starts; without it, the deployed agent", async () => {
    const client = new MeshClient(conn);
    const items = createRegistryItemsClient(client);
    const brainOf = (prompt: string) => ({ provider: PROVIDER, system_prompt: prompt });
    await items.createResource({
      ...inMain,
      path: 'f/ai/drafted_agent',
      resource_type: 'ai_agent',
      value: brainOf('You are the deployed agent.'),
    });
    await createRegistryDraftsClient(client).save({
      ...inMain,
      item_kind: 'resource',
      path: 'f/ai/drafted_agent',
      value: { resource_type: 'ai_agent', value: brainOf('You are the drafted agent.') },
    });
    const linkedStep = {
      id: 'agent',
      value: {
        type: 'aiagent',
        agent: 'f/ai/drafted_agent',
        input_transforms: { user_message: fixed('Who are you?') },
      },
    };
    const systemOf = async (agentDrafts: boolean) => {
      const before = fake.chatRequests().length;
      fake.reply({ text: 'Me.' });
      const { job_id: id } = await jobs.runFlow({
        ...inMain,
        value: { modules: [linkedStep] },
        ...(agentDrafts ? { agent_drafts: true } : {}),
      });
      const job = await ended(id);
      expect(job.status, JSON.stringify(job.result)).toBe('completed');
      // The job carries the link, never the agent's configuration.
      expect(JSON.stringify(job.raw_flow)).not.toContain('drafted agent');
      return sentSince(before)[0].messages[0];
    };
    expect(await systemOf(true)).toEqual({ role: 'system', content: 'You are the drafted agent.' });
    expect(await systemOf(false)).toEqual({ role: 'system', content: 'You are the deployed agent.' });
    // Only a preview runs drafts.
    await expect(jobs.runFlow({ ...inMain, path: 'f/ai/chat', agent_drafts: true })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringContaining(
        'agent_drafts: only a preview (a flow value) runs agent drafts',
      ) as unknown,
    });
  });

  it('pin_agents: a run uses the agents (nested agent tools included) as they were when it started; an edit mid-run changes nothing', async () => {
    const items = createRegistryItemsClient(new MeshClient(conn));
    const inner = (prompt: string) => ({ provider: PROVIDER, system_prompt: prompt });
    const outer = (prompt: string) => ({
      provider: PROVIDER,
      system_prompt: prompt,
      tools: [
        {
          id: 'helper',
          summary: 'helper',
          value: {
            tool_type: 'flowmodule',
            type: 'aiagent',
            agent: 'f/ai/pin_inner',
            input_transforms: { user_message: { type: 'ai' } },
          },
        },
      ],
    });
    await items.createResource({
      ...inMain,
      path: 'f/ai/pin_inner',
      resource_type: 'ai_agent',
      value: inner('Inner v1'),
    });
    await items.createResource({
      ...inMain,
      path: 'f/ai/pin_outer',
      resource_type: 'ai_agent',
      value: outer('Outer v1'),
    });
    const linked = {
      id: 'agent',
      value: { type: 'aiagent', agent: 'f/ai/pin_outer', input_transforms: { user_message: fixed('Go.') } },
    };
    const before = fake.chatRequests().length;
    fake.reply(
      { toolCalls: [{ id: 'call_h', name: 'helper', arguments: '{"user_message":"Help."}' }] },
      { text: 'Helped.' },
      { text: 'Done.' },
    );
    // The agents are read when the run is accepted; the step starts after the edit below.
    const { job_id: id } = await jobs.runFlow({
      ...inMain,
      value: { modules: [pauseStep(1_500), linked] },
      pin_agents: true,
    });
    await items.updateResourceValue({ ...inMain, path: 'f/ai/pin_outer', value: outer('Outer v2') });
    await items.updateResourceValue({ ...inMain, path: 'f/ai/pin_inner', value: inner('Inner v2') });
    const job = await ended(id);
    expect(job.status, JSON.stringify(job.result)).toBe('completed');
    const [first, nested, last] = sentSince(before);
    expect(first.messages[0]).toEqual({ role: 'system', content: 'Outer v1' });
    expect(nested.messages[0]).toEqual({ role: 'system', content: 'Inner v1' });
    expect(last.messages[0]).toEqual({ role: 'system', content: 'Outer v1' });
    expect((await jobs.logs({ ...inMain, id: job.flow_status!.modules[1].job! })).logs).toContain(
      'the agent f/ai/pin_outer runs as pinned when the run started',
    );

    // Live, the default: the next run reads the edit.
    const live = fake.chatRequests().length;
    fake.reply({ text: 'Hi.' });
    expect((await run([linked])).status).toBe('completed');
    expect(sentSince(live)[0].messages[0]).toEqual({ role: 'system', content: 'Outer v2' });

    // An agent the run cannot read refuses the pinned run, naming it; a saved flow's agents are never the caller's.
    const missing = { ...linked, value: { ...linked.value, agent: 'f/ai/no_such_agent' } };
    await expect(
      jobs.runFlow({ ...inMain, value: { modules: [missing] }, pin_agents: true }),
    ).rejects.toMatchObject({
      message: expect.stringContaining(
        'pin_agents: the agent f/ai/no_such_agent could not be read',
      ) as unknown,
    });
    await expect(
      jobs.runFlow({ ...inMain, path: 'f/ai/chat', pinned_agents: { 'f/ai/pin_outer': outer('Evil') } }),
    ).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringContaining('pinned_agents: only a preview') as unknown,
    });
  });

  it('a nested agent tool runs as its own job: the model fills its message, its answer is the result; it is offered no question tool', async () => {
    const before = fake.chatRequests().length;
    const writer = {
      id: 'writer',
      summary: 'writer',
      description: 'Writes crisp summaries',
      value: {
        tool_type: 'flowmodule',
        type: 'aiagent',
        input_transforms: {
          provider: fixed(PROVIDER),
          user_message: { type: 'ai' },
          system_prompt: fixed('You write crisp summaries.'),
        },
        tools: [addTool, { id: 'ask', value: { tool_type: 'question' } }],
      },
    };
    fake.reply(
      {
        toolCalls: [{ id: 'call_w', name: 'writer', arguments: '{"user_message":"Summarize: sales rose."}' }],
      },
      { text: 'Sales rose.' },
      { text: 'Summary: Sales rose.' },
    );
    const job = await run([agentStep({ user_message: fixed('Plan the report.') }, { tools: [writer] })]);
    expect(job.status, JSON.stringify(job.result)).toBe('completed');
    expect(job.result).toMatchObject({ output: 'Summary: Sales rose.' });
    const [parent, nested, parentAgain] = sentSince(before);
    expect(parent.tools![0].function).toMatchObject({
      name: 'writer',
      parameters: {
        properties: { user_message: { description: 'user_message' } },
        required: ['user_message'],
      },
    });
    expect(nested.messages).toEqual([
      { role: 'system', content: 'You write crisp summaries.' },
      { role: 'user', content: 'Summarize: sales rose.' },
    ]);
    expect(nested.tools!.map((tool) => tool.function.name)).toEqual(['add']);
    expect(parentAgain.messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'call_w',
      content: '"Sales rose."',
    });
    // Its own job, with its own step and result.
    const action = job.flow_status!.modules[0].agent_actions![0] as {
      type: string;
      job_id: string;
      module_id: string;
    };
    expect(action).toMatchObject({ type: 'tool_call', function_name: 'writer', module_id: 'writer' });
    expect((await jobs.get({ ...inMain, id: action.job_id })).result).toMatchObject({
      output: 'Sales rose.',
    });
  });

  it('a nested agent tool linking an ai_agent is offered none of its tools a person answers (question, requires_approval)', async () => {
    const items = createRegistryItemsClient(new MeshClient(conn));
    const path = `f/ai/nested_${randomBytes(3).toString('hex')}`;
    await items.createResource({
      ...inMain,
      path,
      resource_type: 'ai_agent',
      value: {
        provider: PROVIDER,
        system_prompt: 'You help.',
        tools: [
          addTool,
          {
            ...scaleTool({ n: { type: 'ai' }, factor: fixed(2), offset: fixed(0) }),
            requires_approval: true,
          },
          { id: 'ask', value: { tool_type: 'question' } },
        ],
      },
    });
    const helper = {
      id: 'helper',
      summary: 'helper',
      value: {
        tool_type: 'flowmodule',
        type: 'aiagent',
        agent: path,
        input_transforms: { user_message: { type: 'ai' } },
      },
    };
    const before = fake.chatRequests().length;
    fake.reply(
      { toolCalls: [{ id: 'call_h', name: 'helper', arguments: '{"user_message":"Help."}' }] },
      { text: 'Helped.' },
      { text: 'Done.' },
    );
    const job = await run([agentStep({ user_message: fixed('Go.') }, { tools: [helper] })]);
    expect(job.status, JSON.stringify(job.result)).toBe('completed');
    const [, nested] = sentSince(before);
    expect(nested.messages[0]).toEqual({ role: 'system', content: 'You help.' });
    expect(nested.tools!.map((tool) => tool.function.name)).toEqual(['add']);
    // The same agent linked by a step of its own is offered all three.
    fake.reply({ text: 'Alone.' });
    const alone = await run([
      {
        id: 'agent',
        value: { type: 'aiagent', agent: path, input_transforms: { user_message: fixed('Hi.') } },
      },
    ]);
    expect(alone.status, JSON.stringify(alone.result)).toBe('completed');
    expect(fake.chatRequests().at(-1)!.body).toMatchObject({
      tools: [
        { function: { name: 'add' } },
        { function: { name: 'scale' } },
        { function: { name: 'ask_question' } },
      ],
    });
  });

  it("user_attachments: the workspace's images and PDFs reach the model with the message; the record keeps references; others are refused naming the field", async () => {
    const PNG =
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
    const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n').toString('base64');
    const storage = objectStorage();
    const put = (key: string, body: string, contentType: string) =>
      storage.send(
        new PutObjectCommand({
          Bucket: s3.bucket,
          Key: key,
          Body: Buffer.from(body, 'base64'),
          ContentType: contentType,
        }),
      );
    await put('attachments/main/cat.png', PNG, 'image/png');
    await put('attachments/main/report.pdf', PDF, 'application/pdf');
    await put('attachments/other/secret.png', PNG, 'image/png');
    storage.destroy();
    const attach = (...keys: string[]) =>
      agentStep({
        user_message: fixed('What are these?'),
        user_attachments: fixed(keys.map((key) => ({ bucket: s3.bucket, key }))),
      });

    const before = fake.chatRequests().length;
    fake.reply({ text: 'A pixel and a report.' });
    const job = await run([attach('attachments/main/cat.png', 'attachments/main/report.pdf')]);
    expect(job.status, JSON.stringify(job.result)).toBe('completed');
    expect(sentSince(before)[0].messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What are these?' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
          { type: 'file', file: { file_data: `data:application/pdf;base64,${PDF}` } },
        ],
      },
    ]);
    // The step's record names the objects; their bytes never enter the job.
    expect((job.result as { messages: unknown[] }).messages[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'What are these?' },
        {
          type: 'attachment',
          object: { key: 'attachments/main/cat.png', storage: s3.bucket },
          mediaType: 'image/png',
        },
        {
          type: 'attachment',
          object: { key: 'attachments/main/report.pdf', storage: s3.bucket },
          mediaType: 'application/pdf',
        },
      ],
    });
    expect(JSON.stringify(job.result)).not.toContain(PNG);

    const refused = async (key: string) => {
      const asked = fake.chatRequests().length;
      const failed = await run([attach('attachments/main/cat.png', key)]);
      expect(fake.chatRequests().length).toBe(asked);
      expect(failed.status).toBe('failed');
      return (failed.result as { error: { name: string; message: string } }).error;
    };
    expect(await refused('attachments/other/secret.png')).toMatchObject({
      name: 'AgentInputError',
      message: `input_transforms.user_attachments[1]: ${s3.bucket}/attachments/other/secret.png is outside what this workspace may attach (${s3.bucket}/attachments/main/; FLOWMESH_AGENT_ATTACHMENTS)`,
    });
    expect((await refused('attachments/main/missing.png')).message).toBe(
      `input_transforms.user_attachments[1]: there is no object attachments/main/missing.png in ${s3.bucket}`,
    );
    expect((await refused('memory/main/x/agent.json')).message).toMatch(
      /^input_transforms\.user_attachments\[1\]: memory\/main\/x\/agent\.json is in memory-service's storage/,
    );
  });

  it("output_type image: the model draws from the prompt and an attachment; the picture is stored in the workspace's location and the output names it; a provider that cannot draw is refused", async () => {
    const START =
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
    const DRAWN =
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
    const storage = objectStorage();
    try {
      await storage.send(
        new PutObjectCommand({
          Bucket: s3.bucket,
          Key: 'attachments/main/start.png',
          Body: Buffer.from(START, 'base64'),
          ContentType: 'image/png',
        }),
      );
      const before = fake.requests.length;
      fake.reply({ image: DRAWN, text: 'A red pixel.', usage: { prompt_tokens: 12, completion_tokens: 34 } });
      const job = await run([
        agentStep(
          {
            output_type: fixed('image'),
            system_prompt: fixed('You draw pixels.'),
            user_message: fixed('Make it red'),
            user_attachments: fixed([{ bucket: s3.bucket, key: 'attachments/main/start.png' }]),
          },
          { tools: [addTool] },
        ),
      ]);
      expect(job.status, JSON.stringify(job.result)).toBe('completed');
      // One Responses API call with the image tool; the attachment inlined, no tool offered.
      expect(fake.requests.slice(before).map((request) => [request.path, request.body])).toEqual([
        [
          '/v1/responses',
          {
            model: 'gpt-4o-mini',
            instructions: 'You draw pixels.',
            input: [
              {
                role: 'user',
                content: [
                  { type: 'input_text', text: 'Make it red' },
                  { type: 'input_image', image_url: `data:image/png;base64,${START}` },
                ],
              },
            ],
            tools: [{ type: 'image_generation', output_format: 'png' }],
            tool_choice: { type: 'image_generation' },
            store: false,
          },
        ],
      ]);
      const stepJob = job.flow_status!.modules[0].job!;
      const result = job.result as {
        output: { s3: string; filename: string; bucket: string; key: string };
        usage: unknown;
        messages: Array<{ role: string }>;
      };
      expect(result.output).toEqual({
        s3: result.output.key,
        filename: 'generated_image.png',
        bucket: s3.bucket,
        key: expect.stringMatching(
          new RegExp(`^attachments/main/ai_images/${stepJob}/[0-9a-f-]{36}\\.png$`),
        ) as unknown,
      });
      expect(result.usage).toEqual({ input_tokens: 12, output_tokens: 34, total_tokens: 46 });
      expect(result.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
      expect(job.flow_status!.modules[0].agent_actions).toEqual([
        { type: 'message', content: 'A red pixel.' },
      ]);
      const stored = await storage.send(new GetObjectCommand({ Bucket: s3.bucket, Key: result.output.key }));
      expect(stored.ContentType).toBe('image/png');
      expect(Buffer.from(await stored.Body!.transformToByteArray()).toString('base64')).toBe(DRAWN);

      // Mistral draws nothing through the gateway: the step fails naming why, nothing is sent.
      await createRegistryItemsClient(new MeshClient(conn)).createResource({
        ...inMain,
        path: 'f/ai/mistral',
        resource_type: 'mistral',
        value: { base_url: `${fake.url}/v1`, api_key: '$var:f/ai/openai_key' },
      });
      const asked = fake.requests.length;
      const refused = await run([
        agentStep({
          provider: fixed({ kind: 'mistral', resource: '$res:f/ai/mistral', model: 'mistral-small' }),
          output_type: fixed('image'),
          user_message: fixed('Draw'),
        }),
      ]);
      expect(refused.status).toBe('failed');
      expect((refused.result as { error: unknown }).error).toEqual({
        name: 'AgentInputError',
        message:
          'provider.kind: mistral generates no images through the gateway; use openai, googleai or openrouter with an image model',
        step_id: 'agent',
        // The step's own input is wrong: the user's to fix, never a page.
        fault: 'user',
      });
      expect(fake.requests.length).toBe(asked);
    } finally {
      storage.destroy();
    }
  });

  it('a cancelled step stops at once: the model call in flight and a drawing are abandoned upstream, nothing more is asked', async () => {
    for (const outputType of ['text', 'image']) {
      const before = fake.requests.length;
      fake.reply({ silentStream: true });
      const flowId = (
        await jobs.runFlow({
          ...inMain,
          value: {
            modules: [agentStep({ output_type: fixed(outputType), user_message: fixed('Take your time') })],
          },
        })
      ).job_id;
      const call = await waitFor(
        () => fake.requests.slice(before).find((request) => request.method === 'POST'),
        {
          timeoutMs: 30_000,
          intervalMs: 50,
          description: `the ${outputType} call to reach the provider`,
        },
      );
      const stepJob = (await jobs.get({ ...inMain, id: flowId })).flow_status!.modules[0].job!;
      await jobs.cancel({ ...inMain, id: flowId, reason: 'changed my mind' });
      expect((await ended(flowId)).status).not.toBe('completed');
      // The gateway aborted the provider's request (left alone it would hang for minutes).
      await waitFor(() => call.aborted || undefined, {
        timeoutMs: 20_000,
        description: `the ${outputType} call to be abandoned upstream`,
      });
      await waitFor(
        () => output.some((line) => line.includes(stepJob) && line.includes('its run stops')) || undefined,
        {
          timeoutMs: 20_000,
          description: 'agent-runtime to stop the cancelled step',
        },
      );
      expect(call.path).toBe(outputType === 'image' ? '/v1/responses' : '/v1/chat/completions');
      expect(fake.requests.length).toBe(before + 1);
      expect((await jobs.get({ ...inMain, id: stepJob })).status).toBe('cancelled');
    }
  });

  it('a websearch tool lets the provider search the web itself: asked on each model call, recorded as a web_search action; a provider without one is refused', async () => {
    const webSearch = { id: 'web', value: { tool_type: 'websearch' } };
    const before = fake.chatRequests().length;
    fake.reply({
      text: 'It rained in Paris today.',
      citations: [{ url: 'https://news.test/paris', title: 'Paris' }],
    });
    const job = await run([
      agentStep({ user_message: fixed('Weather in Paris today?') }, { tools: [webSearch, addTool] }),
    ]);
    expect(job.status, JSON.stringify(job.result)).toBe('completed');
    const [sent] = fake
      .chatRequests()
      .slice(before)
      .map((request) => request.body as SentChat & { web_search_options?: unknown });
    expect(sent.web_search_options).toEqual({});
    expect(sent.tools!.map((tool) => tool.function.name)).toEqual(['add']);
    expect(job.flow_status!.modules[0].agent_actions).toEqual([
      { type: 'web_search' },
      { type: 'message', content: 'It rained in Paris today.' },
    ]);

    // DeepSeek (OpenAI-shaped) has no search of its own: the step fails naming why, nothing is sent.
    const items = createRegistryItemsClient(new MeshClient(conn));
    await items.createResource({
      ...inMain,
      path: 'f/ai/deepseek',
      resource_type: 'deepseek',
      value: { base_url: `${fake.url}/v1`, api_key: '$var:f/ai/openai_key' },
    });
    const asked = fake.chatRequests().length;
    const refused = await run([
      agentStep(
        {
          provider: fixed({ kind: 'deepseek', resource: '$res:f/ai/deepseek', model: 'deepseek-chat' }),
          user_message: fixed('News?'),
        },
        { tools: [webSearch] },
      ),
    ]);
    expect(refused.status).toBe('failed');
    expect((refused.result as { error: { message: string } }).error.message).toContain(
      'webSearch deepseek has no web search of its own',
    );
    expect(fake.chatRequests().length).toBe(asked);
  });

  it('answers in the shape of output_schema: the provider is asked for it natively, the output is the object', async () => {
    const before = fake.chatRequests().length;
    fake.reply({ text: '{"name":"Ada","age":36}' });
    const schema = {
      type: 'object',
      properties: { name: { type: 'string' }, age: { type: 'integer' } },
      required: ['name'],
    };
    const job = await run([agentStep({ user_message: fixed('Who?'), output_schema: fixed(schema) })]);
    expect([job.status, (job.result as { output: unknown }).output]).toEqual([
      'completed',
      { name: 'Ada', age: 36 },
    ]);
    const sent = fake.chatRequests()[before].body as { response_format: unknown };
    expect(sent.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'output', schema, strict: true },
    });
  });

  it('an answer that does not match output_schema: the model is told what is wrong and asked once more, then the step fails naming it', async () => {
    const schema = {
      type: 'object',
      properties: { name: { type: 'string' }, age: { type: 'integer' } },
      required: ['name'],
    };
    const before = fake.chatRequests().length;
    fake.reply({ text: '{"name":7}' }, { text: '{"name":"Ada","age":36}' });
    const fixedUp = await run([agentStep({ user_message: fixed('Who?'), output_schema: fixed(schema) })]);
    expect([fixedUp.status, (fixedUp.result as { output: unknown }).output]).toEqual([
      'completed',
      { name: 'Ada', age: 36 },
    ]);
    const retry = sentSince(before)[1].messages.at(-1) as { role: string; content: string };
    expect(retry.role).toBe('user');
    expect(retry.content).toContain('name: must be string');

    fake.reply({ text: 'Ada, 36' }, { text: '{"age":36}' });
    const failed = await run([agentStep({ user_message: fixed('Who?'), output_schema: fixed(schema) })]);
    expect(failed.status).toBe('failed');
    expect((failed.result as { error: unknown }).error).toMatchObject({
      name: 'AgentOutputError',
      message: expect.stringContaining("must have required property 'name'") as unknown,
    });

    const beforeBad = fake.chatRequests().length;
    const bad = await run([
      agentStep({ user_message: fixed('Who?'), output_schema: fixed({ type: 'no such type' }) }),
    ]);
    expect((bad.result as { error: unknown }).error).toMatchObject({
      name: 'AgentInputError',
      message: expect.stringContaining('output_schema: is not a valid JSON Schema') as unknown,
    });
    expect(fake.chatRequests().length).toBe(beforeBad);
  });

  it('fails the step naming the input when the step cannot run: no provider, a tool it cannot run', async () => {
    const before = fake.chatRequests().length;
    // The orchestrator checks a static provider is there; one from an expression can still be missing.
    const missing = await run([
      agentStep({ provider: { type: 'javascript', expr: 'flow_input.provider' }, user_message: fixed('hi') }),
    ]);
    expect(missing.status).toBe('failed');
    expect(missing.result).toMatchObject({
      error: { name: 'AgentInputError', message: 'input_transforms.provider: is required', step_id: 'agent' },
    });
    // The question tool is built in, under one name: a second one would collide.
    const twoQuestions = await run([
      agentStep(
        { user_message: fixed('hi') },
        { tools: [1, 2].map((n) => ({ id: `ask${n}`, value: { tool_type: 'question' } })) },
      ),
    ]);
    expect((twoQuestions.result as { error: { message: string } }).error.message).toMatch(
      /^tools \(ask1, ask2\): both give the model a tool named ask_question/,
    );
    expect(fake.chatRequests().length).toBe(before);
  });

  it("a provider given inline (Windmill's ProviderResource): its $var: key is read by the gateway as the step, never stored", async () => {
    const inline = (resource: Record<string, unknown>) =>
      agentStep({
        provider: fixed({ kind: 'openai', resource, model: 'gpt-4o-mini' }),
        user_message: fixed('hi inline'),
      });
    const before = fake.chatRequests().length;
    fake.reply({ text: 'inline works' });
    const job = await run([
      inline({
        baseUrl: `${fake.url}/v1`,
        apiKey: '$var:f/ai/openai_key',
        enable_1M_context: true,
        extra: 1,
      }),
    ]);
    expect(job.status, JSON.stringify(job.result)).toBe('completed');
    expect(job.result).toMatchObject({ output: 'inline works' });
    // The fake answers only its key: the variable was read and sent.
    expect(sentSince(before).map((sent) => sent.messages.at(-1))).toEqual([
      { role: 'user', content: 'hi inline' },
    ]);
    expect(JSON.stringify(job)).not.toContain(OPENAI_KEY);

    // A variable the step cannot read fails it, naming the variable, before any model call.
    const missing = await run([inline({ base_url: `${fake.url}/v1`, api_key: '$var:f/ai/no_such_key' })]);
    expect(missing.status).toBe('failed');
    expect((missing.result as { error: { message: string } }).error.message).toMatch(/f\/ai\/no_such_key/);
    // Fields that do not make a credential of the kind are named, never their values.
    const wrong = await run([inline({ baseUrl: `${fake.url}/v1` })]);
    expect(wrong.result).toMatchObject({
      error: {
        name: 'AgentInputError',
        message: expect.stringContaining('not a valid openai credential (check: api_key)') as unknown,
      },
    });
    expect(fake.chatRequests().length).toBe(before + 1);
  });

  it('a model error fails the step with its class; max_iterations bounds a model that never stops calling tools', async () => {
    fake.reply({ error: { status: 400, message: 'This model does not exist', code: 'model_not_found' } });
    const refused = await run([agentStep({ user_message: fixed('hi') })]);
    expect(refused.status).toBe('failed');
    expect((refused.result as { error: { name: string } }).error.name).toBe('AgentModelError');

    fake.setDefaultReply({ toolCalls: [{ name: 'add', arguments: '{"a":1,"b":1}' }] });
    const looping = await run([
      agentStep({ user_message: fixed('loop'), max_iterations: fixed(2) }, { tools: [addTool] }),
    ]);
    expect(looping.status).toBe('failed');
    expect(looping.result).toMatchObject({
      error: {
        name: 'MaxIterationsReached',
        message: 'the agent made 2 model calls (max_iterations) without a final answer',
      },
    });
    expect(looping.flow_status!.modules[0].agent_actions).toHaveLength(2);
  });

  it('window memory: a second run of a saved flow replays the first exchange for the same memory_id, not another', async () => {
    const items = createRegistryItemsClient(new MeshClient(conn));
    const memoryStep = agentStep({
      user_message: { type: 'javascript', expr: 'flow_input.say' },
      memory: { type: 'static', value: { kind: 'window', context_length: 10 } },
      memory_id: { type: 'javascript', expr: 'flow_input.customer' },
    });
    await items.createFlow({
      ...inMain,
      path: 'f/ai/support',
      summary: 'support',
      value: { modules: [memoryStep] },
    });
    const runSaved = async (customer: string, say: string) =>
      ended((await jobs.runFlow({ ...inMain, path: 'f/ai/support', args: { customer, say } })).job_id);

    const before = fake.chatRequests().length;
    fake.reply({ text: 'Hello Ada.' }, { text: 'You are Ada.' }, { text: 'I do not know.' });
    expect((await runSaved('c-1', 'I am Ada')).status).toBe('completed');
    expect((await runSaved('c-1', 'Who am I?')).result).toMatchObject({ output: 'You are Ada.' });
    expect((await runSaved('c-2', 'Who am I?')).result).toMatchObject({ output: 'I do not know.' });
    const sent = fake
      .chatRequests()
      .slice(before)
      .map((request) => (request.body as { messages: unknown }).messages);
    expect(sent[1]).toEqual([
      { role: 'user', content: 'I am Ada' },
      { role: 'assistant', content: 'Hello Ada.' },
      { role: 'user', content: 'Who am I?' },
    ]);
    expect(sent[2]).toEqual([{ role: 'user', content: 'Who am I?' }]);
  });

  it("the run's memory id: runs started with one share a memory; a step memory_id overrides it, and one evaluating to nothing runs stateless, said in the job log", async () => {
    const items = createRegistryItemsClient(new MeshClient(conn));
    const chatStep = (inputs: Record<string, unknown> = {}) =>
      agentStep({
        user_message: { type: 'javascript', expr: 'flow_input.say' },
        memory: { type: 'static', value: { kind: 'window', context_length: 10 } },
        ...inputs,
      });
    await items.createFlow({
      ...inMain,
      path: 'f/ai/chat',
      summary: 'chat',
      value: { modules: [chatStep()] },
    });
    await items.createFlow({
      ...inMain,
      path: 'f/ai/chat_own_memory',
      summary: 'chat with a step memory id',
      value: { modules: [chatStep({ memory_id: { type: 'javascript', expr: 'flow_input.customer' } })] },
    });
    const stepJob = (flow: Job) => flow.flow_status!.modules[0].job!;
    const lastSent = () => (fake.chatRequests().at(-1)!.body as { messages: unknown }).messages;

    // Started over HTTP with ?memory_id=, as a chat front end would; kept on the run's flow status.
    const conversation = `conv-${randomBytes(4).toString('hex')}`;
    const runOverHttp = async (say: string) => {
      const response = await fetch(
        `${mesh.urls['flow-orchestrator']}/api/w/main/jobs/run/f/f/ai/chat?memory_id=${conversation}`,
        {
          method: 'POST',
          headers: { authorization: `Bearer ${actor.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ say }),
        },
      );
      expect(response.status).toBe(201);
      return ended(await response.text());
    };
    fake.reply({ text: 'Hello Ada.' }, { text: 'You are Ada.' });
    const first = await runOverHttp('I am Ada');
    expect(first.flow_status!.memory_id).toBe(conversation);
    expect((await runOverHttp('Who am I?')).result).toMatchObject({ output: 'You are Ada.' });
    expect(lastSent()).toEqual([
      { role: 'user', content: 'I am Ada' },
      { role: 'assistant', content: 'Hello Ada.' },
      { role: 'user', content: 'Who am I?' },
    ]);

    // The step's own memory id wins over the run's: a new memory, though the run names the old one.
    const runOwn = async (args: Record<string, unknown>) =>
      ended(
        (await jobs.runFlow({ ...inMain, path: 'f/ai/chat_own_memory', memory_id: conversation, args }))
          .job_id,
      );
    fake.reply({ text: 'I do not know.' });
    await runOwn({ say: 'Who am I?', customer: 'c-9' });
    expect(lastSent()).toEqual([{ role: 'user', content: 'Who am I?' }]);

    // An expression evaluating to nothing runs stateless rather than falling back to the run's id.
    fake.reply({ text: 'Still do not know.' });
    const stateless = await runOwn({ say: 'Who am I?' });
    expect(lastSent()).toEqual([{ role: 'user', content: 'Who am I?' }]);
    const log = await jobs.logs({ ...inMain, id: stepJob(stateless) });
    expect(log.logs).toContain(
      "memory is window and the step's memory_id evaluated to nothing: the agent runs stateless",
    );

    // A run started with no memory id runs stateless, and its job log says so.
    fake.reply({ text: 'Who are you?' });
    const plainRun = await ended(
      (await jobs.runFlow({ ...inMain, path: 'f/ai/chat', args: { say: 'Who am I?' } })).job_id,
    );
    expect(lastSent()).toEqual([{ role: 'user', content: 'Who am I?' }]);
    expect((await jobs.logs({ ...inMain, id: stepJob(plainRun) })).logs).toContain(
      'neither the step nor the run names a memory id: the agent runs stateless',
    );
  });

  it('a preview keeps memory as any run: under the path it names (a saved flow’s memory), else under none', async () => {
    const chatStep = agentStep({
      user_message: { type: 'javascript', expr: 'flow_input.say' },
      memory: { type: 'static', value: { kind: 'window', context_length: 10 } },
    });
    const lastSent = () => (fake.chatRequests().at(-1)!.body as { messages: unknown }).messages;
    const preview = async (memoryId: string, say: string, path?: string) => {
      const response = await fetch(
        `${mesh.urls['flow-orchestrator']}/api/w/main/jobs/run/preview_flow?memory_id=${memoryId}`,
        {
          method: 'POST',
          headers: { authorization: `Bearer ${actor.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ value: { modules: [chatStep] }, args: { say }, ...(path ? { path } : {}) }),
        },
      );
      expect(response.status).toBe(201);
      return ended(await response.text());
    };

    // No path: the editor's test run of a chat flow not saved yet remembers.
    const draft = `draft-${randomBytes(4).toString('hex')}`;
    fake.reply({ text: 'Hello Grace.' }, { text: 'You are Grace.' });
    await preview(draft, 'I am Grace');
    expect((await preview(draft, 'Who am I?')).result).toMatchObject({ output: 'You are Grace.' });
    expect(lastSent()).toEqual([
      { role: 'user', content: 'I am Grace' },
      { role: 'assistant', content: 'Hello Grace.' },
      { role: 'user', content: 'Who am I?' },
    ]);

    // With the path of a saved flow, the same key names the saved flow's memory.
    const items = createRegistryItemsClient(new MeshClient(conn));
    await items.createFlow({
      ...inMain,
      path: 'f/ai/preview_chat',
      summary: 'chat',
      value: { modules: [chatStep] },
    });
    const key = `conv-${randomBytes(4).toString('hex')}`;
    fake.reply({ text: 'Hello Linus.' }, { text: 'You are Linus.' });
    await ended(
      (
        await jobs.runFlow({
          ...inMain,
          path: 'f/ai/preview_chat',
          memory_id: key,
          args: { say: 'I am Linus' },
        })
      ).job_id,
    );
    expect((await preview(key, 'Who am I?', 'f/ai/preview_chat')).result).toMatchObject({
      output: 'You are Linus.',
    });
    expect(lastSent()).toEqual([
      { role: 'user', content: 'I am Linus' },
      { role: 'assistant', content: 'Hello Linus.' },
      { role: 'user', content: 'Who am I?' },
    ]);
    // The same key without the path is another memory.
    fake.reply({ text: 'I do not know.' });
    await preview(key, 'Who am I?');
    expect(lastSent()).toEqual([{ role: 'user', content: 'Who am I?' }]);
  });

  it("a chat flow keeps a transcript under the run's memory id: the user's turn, then each step's tool results and answers unless it omits them", async () => {
    const items = createRegistryItemsClient(new MeshClient(conn));
    await items.createFlow({
      ...inMain,
      path: 'f/ai/chat_desk',
      summary: 'chat desk',
      value: {
        chat_input_enabled: true,
        modules: [
          agentStep(
            { user_message: { type: 'javascript', expr: 'flow_input.user_message' } },
            { tools: [addTool] },
          ),
          {
            ...agentStep(
              { user_message: fixed('Grade the answer.') },
              { omit_output_from_conversation: true },
            ),
            id: 'grader',
          },
        ],
      },
    });
    fake.reply(
      { toolCalls: [{ id: 'call_add', name: 'add', arguments: '{"a":2,"b":3}' }] },
      { text: 'It is 5.' },
      { text: 'Good answer.' },
    );
    const conversation = `chat-${randomBytes(4).toString('hex')}`;
    const job = await ended(
      (
        await jobs.runFlow({
          ...inMain,
          path: 'f/ai/chat_desk',
          memory_id: conversation,
          args: { user_message: 'Add 2 and 3' },
        })
      ).job_id,
    );
    expect(job.status, JSON.stringify(job.result)).toBe('completed');
    const memory = createMemoryClient(new MeshClient(conn));
    const { memoryId } = await memory.resolveKey({
      workspace: 'main',
      flowPath: 'f/ai/chat_desk',
      memoryKey: conversation,
    });
    const { messages } = await memory.listConversationMessages({ ...inMain, conversationId: memoryId });
    expect(messages.map((message) => [message.seq, message.role, message.content, message.stepId])).toEqual([
      [1, 'user', 'Add 2 and 3', null],
      [2, 'tool', '5', 'agent'],
      [3, 'assistant', 'It is 5.', 'agent'],
    ]);
  });

  describe('aidecision steps', () => {
    const DECISION_KEY = `ts-${randomBytes(12).toString('hex')}`;
    let decisions: FakeSystemOne;
    const questions = {
      intent: {
        type: 'choice',
        instructions: 'What does the customer want?',
        criteria: { refund: 'Money back', bug: 'Something is broken' },
      },
      urgent: { type: 'noul', instructions: 'Is it urgent?' },
    };
    /** The model's answers to `questions`: the intent it picks (with 0.9 of the mass) and how urgent. */
    const triageAnswers = (choice: 'bug' | 'refund', urgent: number) => ({
      intent: {
        type: 'choice',
        choice,
        probabilities: choice === 'bug' ? { refund: 0.1, bug: 0.9 } : { refund: 0.9, bug: 0.1 },
        confidence: 0.8,
      },
      urgent: { type: 'noul', noul: urgent },
    });
    const decideStep = (provider: Record<string, unknown>, asked: unknown = questions) => ({
      id: 'triage',
      value: {
        type: 'aidecision',
        input_transforms: {
          provider: fixed(provider),
          state: { type: 'javascript', expr: 'flow_input.message' },
          questions: fixed(asked),
        },
      },
    });
    // A later step routes on the answer, as the spec suggests.
    const route = {
      id: 'route',
      value: {
        type: 'branchone',
        branches: [
          {
            expr: "results.triage.output.intent.choice === 'bug'",
            modules: [
              {
                id: 'engineering',
                value: {
                  type: 'rawscript',
                  language: 'bun',
                  content: "export function main() { return 'to engineering'; }",
                  input_transforms: {},
                },
              },
            ],
          },
        ],
        default: [
          {
            id: 'billing',
            value: {
              type: 'rawscript',
              language: 'bun',
              content: "export function main() { return 'to billing'; }",
              input_transforms: {},
            },
          },
        ],
      },
    };

    beforeAll(async () => {
      decisions = await startFakeSystemOne({ apiKey: DECISION_KEY });
      const items = createRegistryItemsClient(new MeshClient(conn));
      await items.createResource({
        ...inMain,
        path: 'f/ai/typesafe',
        resource_type: 'typesafe',
        value: { api_key: DECISION_KEY, base_url: decisions.baseUrl },
      });
      await items.createResource({
        ...inMain,
        path: 'f/ai/cloudflare',
        resource_type: 'cloudflare',
        value: { api_key: DECISION_KEY, base_url: `${decisions.url}/client/v4/accounts/acct-1/ai/v1` },
      });
    });
    afterAll(async () => {
      await decisions?.close();
    });

    it('asks a decision model typed questions about the state; the answers are the output a later step routes on', async () => {
      decisions.answer(triageAnswers('bug', 0.2));
      const job = await run(
        [decideStep({ kind: 'typesafe', resource: '$res:f/ai/typesafe', model: 'jev-latest' }), route],
        {
          message: 'The export button crashes the app.',
        },
      );
      expect([job.status, job.result]).toEqual(['completed', 'to engineering']);
      const request = decisions.requests.at(-1)!;
      expect([request.path, request.headers.authorization]).toEqual([
        '/v1/systemone',
        `Bearer ${DECISION_KEY}`,
      ]);
      expect(request.body).toEqual({
        model: 'jev-latest',
        state: 'The export button crashes the app.',
        questions,
      });
      const step = await jobs.get({ ...inMain, id: job.flow_status!.modules[0].job! });
      expect(step.result).toEqual({
        output: triageAnswers('bug', 0.2),
        model: 'jev-1.13.0',
        usage: {
          input_tokens: expect.any(Number) as unknown,
          output_tokens: 0,
          total_tokens: expect.any(Number) as unknown,
        },
      });
    });

    it("Cloudflare's Clef answers through Workers AI's run route, its envelope unwrapped", async () => {
      decisions.answer(triageAnswers('refund', 0.1));
      const job = await run(
        [decideStep({ kind: 'cloudflare', resource: '$res:f/ai/cloudflare', model: 'clef-flash' }), route],
        {
          message: 'I want my money back.',
        },
      );
      expect(job.result).toBe('to billing');
      expect(decisions.requests.at(-1)!.path).toBe(
        '/client/v4/accounts/acct-1/ai/run/@cf/cloudflare/clef-flash',
      );
      const step = await jobs.get({ ...inMain, id: job.flow_status!.modules[0].job! });
      expect(step.result).toMatchObject({
        model: '@cf/cloudflare/clef-flash',
        output: { intent: { choice: 'refund' } },
      });
    });

    it('a decision module is a tool too: the model gives the state, the answers come back', async () => {
      // Scripted twice: once (1 of 5 runs) a late second run of an earlier decision step (the
      // test's 1.5 s lease, expired on a busy machine) took the only one. A decision step runs
      // at least once; that duplicate is noted on issue 18.
      decisions.answer(triageAnswers('refund', 0.3));
      decisions.answer(triageAnswers('refund', 0.3));
      const triageTool = {
        id: 'triage_tool',
        summary: 'triage',
        description: 'Classifies a customer message',
        value: {
          tool_type: 'flowmodule',
          type: 'aidecision',
          input_transforms: {
            provider: fixed({ kind: 'typesafe', resource: '$res:f/ai/typesafe', model: 'jev-latest' }),
            state: { type: 'ai' },
            questions: fixed(questions),
          },
        },
      };
      const before = fake.chatRequests().length;
      fake.reply(
        { toolCalls: [{ id: 'call_t', name: 'triage', arguments: '{"state":"Please refund order 7."}' }] },
        { text: 'A refund.' },
      );
      const job = await run([
        agentStep({ user_message: fixed('What does this customer want?') }, { tools: [triageTool] }),
      ]);
      expect(job.status, JSON.stringify(job.result)).toBe('completed');
      expect(decisions.requests.at(-1)!.body).toMatchObject({ state: 'Please refund order 7.' });
      const [, second] = sentSince(before);
      const result = (second.messages.at(-1) as { content: string }).content;
      expect(JSON.parse(result)).toEqual(triageAnswers('refund', 0.3));
    });

    // Windmill's engine (backend/tests/ai_decision.rs): a decision routes to a branch itself.
    const decisionInputs = {
      provider: fixed({ kind: 'typesafe', resource: '$res:f/ai/typesafe' }),
      state: fixed('I was charged twice'),
      questions: fixed(questions),
    };
    const script = (id: string, content: string, inputs: Record<string, unknown> = {}) => ({
      id,
      value: { type: 'rawscript', language: 'bun', content, input_transforms: inputs },
    });
    const readChoice = { choice: { type: 'javascript', expr: 'results.d.output.intent.choice' } };

    it("routes on its answers: the branch's steps read results.<id>, the step's result is the branch's", async () => {
      decisions.answer(triageAnswers('refund', 0.3));
      const job = await run([
        {
          id: 'd',
          value: {
            type: 'aidecision',
            input_transforms: decisionInputs,
            branches: [
              {
                expr: "previous_result.output.intent.choice === 'bug'",
                modules: [{ id: 'b', value: { type: 'identity' } }],
              },
              {
                expr: "previous_result.output.intent.choice === 'refund'",
                modules: [
                  script('r', "export function main(choice) { return 'handled ' + choice; }", readChoice),
                ],
              },
            ],
            default: [],
          },
        },
      ]);
      expect([job.status, job.result]).toEqual(['completed', 'handled refund']);
      const status = job.flow_status!.modules[0];
      expect([status.type, status.branch_chosen]).toEqual(['Success', { type: 'branch', branch: 1 }]);
      // The decision's own job is kept beside the branch's, its result the answers.
      const decision = await jobs.get({ ...inMain, id: status.decision_job! });
      expect([decision.kind, decision.result]).toEqual([
        'aidecision',
        { output: triageAnswers('refund', 0.3), model: 'jev-1.13.0', usage: expect.any(Object) as unknown },
      ]);
      expect(status.job).not.toBe(status.decision_job);
    });

    it('a branch expr reads an earlier step; after an empty branch results.<id> stays the answers', async () => {
      decisions.answer(triageAnswers('refund', 0.3));
      const job = await run([
        script('pre', 'export function main() { return { allow: true }; }'),
        {
          id: 'd',
          value: {
            type: 'aidecision',
            input_transforms: decisionInputs,
            branches: [
              {
                expr: "results.pre.allow && previous_result.output.intent.choice === 'refund'",
                modules: [],
              },
            ],
          },
        },
        { id: 'next', value: { type: 'identity' } },
        script('after', 'export function main(choice) { return choice; }', readChoice),
      ]);
      expect([job.status, job.result]).toEqual(['completed', 'refund']);
      expect(job.flow_status!.modules[1]).toMatchObject({
        type: 'Success',
        branch_chosen: { type: 'branch', branch: 0 },
      });
    });

    it('flowmesh eval run: a flow over cases, each run stored with its agent versions, a pass/fail table', async () => {
      const items = createRegistryItemsClient(new MeshClient(conn));
      const agentPath = `f/ai/eval_agent_${randomBytes(3).toString('hex')}`;
      await items.createResource({
        ...inMain,
        path: agentPath,
        resource_type: 'ai_agent',
        value: { provider: PROVIDER, system_prompt: 'You summarize.' },
      });
      // A second version: the runs must record that one, the one current when they were enqueued.
      await items.updateResource({
        ...inMain,
        path: agentPath,
        value: { provider: PROVIDER, system_prompt: 'You summarize, briefly.' },
      });
      const dir = mkdtempSync(join(tmpdir(), 'flowmesh-eval-'));
      try {
        const flow = {
          summary: 'Triage',
          value: {
            modules: [
              {
                id: 'a',
                value: {
                  type: 'aiagent',
                  agent: agentPath,
                  input_transforms: { user_message: { type: 'javascript', expr: 'flow_input.message' } },
                },
              },
              {
                id: 'd',
                value: {
                  type: 'aidecision',
                  input_transforms: {
                    ...decisionInputs,
                    state: { type: 'javascript', expr: 'flow_input.message' },
                  },
                },
              },
            ],
          },
        };
        writeFileSync(join(dir, 'flow.json'), JSON.stringify(flow));
        const cases = [
          {
            name: 'refund',
            args: { message: 'Refund me' },
            expected: { output: { intent: { choice: 'refund' } } },
            match: 'subset',
          },
          {
            name: 'bug',
            args: { message: 'It crashes' },
            expected: { output: { intent: { choice: 'bug' } } },
            match: 'subset',
          },
        ];
        writeFileSync(join(dir, 'cases.jsonl'), cases.map((c) => JSON.stringify(c)).join('\n') + '\n');
        fake.reply({ text: 'A refund request.' }, { text: 'A crash report.' });
        decisions.answer(triageAnswers('refund', 0.2));
        decisions.answer(triageAnswers('refund', 0.2));
        const out = join(dir, 'results.jsonl');
        const evaluated = await runFlowmesh(
          ['eval', 'run', join(dir, 'flow.json'), '--cases', join(dir, 'cases.jsonl'), '--out', out],
          { env: { FLOWMESH_URL: mesh.entryUrl!, FLOWMESH_TOKEN: actor.token }, timeoutMs: 120_000 },
        );
        expect(evaluated.code, evaluated.stderr).toBe(1);
        const table = evaluated.stdout.split('\n');
        expect(table[0]).toMatch(/^CASE\s+RESULT\s+JOB\s+AGENTS$/);
        expect(table[1]).toMatch(new RegExp(`^refund\\s+pass\\s+[0-9a-f-]{36}\\s+${agentPath}@2$`));
        expect(table[2]).toMatch(new RegExp(`^bug\\s+FAIL\\s+[0-9a-f-]{36}\\s+${agentPath}@2$`));
        expect(table[3]).toBe('1 passed, 1 failed');
        const records = readFileSync(out, 'utf8')
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as Record<string, unknown>);
        expect(records.map((record) => [record.case, record.pass, record.agents])).toEqual([
          ['refund', true, { [agentPath]: 2 }],
          ['bug', false, { [agentPath]: 2 }],
        ]);
        // Each run is a job of its own, pinned to the agent as it was when enqueued.
        const job = await jobs.get({ ...inMain, id: records[0].job as string });
        expect(job.result).toMatchObject({ output: { intent: { choice: 'refund' } } });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('names what is wrong: a question that is not one, a provider without decision models', async () => {
      // Questions from an expression are checked when the step runs (static ones when the flow is submitted).
      const badScore = await run(
        [
          {
            ...decideStep({ kind: 'typesafe', resource: '$res:f/ai/typesafe', model: 'jev-latest' }),
            value: {
              type: 'aidecision',
              input_transforms: {
                provider: fixed({ kind: 'typesafe', resource: '$res:f/ai/typesafe', model: 'jev-latest' }),
                state: fixed('x'),
                questions: { type: 'javascript', expr: 'flow_input.questions' },
              },
            },
          },
        ],
        { questions: { level: { type: 'score', instructions: 'How bad?', criteria: ['only one'] } } },
      );
      expect(badScore.status).toBe('failed');
      expect((badScore.result as { error: { name: string; message: string } }).error).toMatchObject({
        name: 'AgentInputError',
        message: expect.stringMatching(/^input_transforms\.questions\.level\.criteria: /) as unknown,
      });
      // A static one is refused with the flow; one from an expression when the step runs.
      const chatStep = decideStep({});
      chatStep.value.input_transforms.provider = {
        type: 'javascript',
        expr: "({ kind: 'anthropic', resource: '$res:f/ai/anthropic', model: 'claude' })",
      } as never;
      const chatOnly = await run([chatStep], { message: 'x' });
      expect((chatOnly.result as { error: { name: string; message: string } }).error).toMatchObject({
        name: 'AgentInputError',
        message:
          'input_transforms.provider.kind: must be a decision model provider (typesafe, cloudflare, openai), got "anthropic"',
      });
      // The provider's own refusal is the step's AiDecisionError, with the gateway's error class.
      const items = createRegistryItemsClient(new MeshClient(conn));
      await items.createResource({
        ...inMain,
        path: 'f/ai/typesafe_wrong_key',
        resource_type: 'typesafe',
        value: { api_key: 'ts-wrong', base_url: decisions.baseUrl },
      });
      const refused = await run(
        [decideStep({ kind: 'typesafe', resource: '$res:f/ai/typesafe_wrong_key', model: 'jev-latest' })],
        { message: 'x' },
      );
      expect((refused.result as { error: unknown }).error).toMatchObject({
        name: 'AiDecisionError',
        class: 'auth_failed',
      });
    });
  });

  describe('approvals and questions', () => {
    const http = (path: string, init: { method?: string; body?: unknown } = {}) =>
      fetch(`${mesh.urls['flow-orchestrator']}/api/w/main/${path}`, {
        method: init.method ?? 'GET',
        headers: { authorization: `Bearer ${actor.token}`, 'content-type': 'application/json' },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      });
    /** Answers the parked step as the admin, as the run page would. */
    const answer = (stepJob: string, approve: boolean, payload: unknown) =>
      http(`jobs/flow/resume/${stepJob}?approve=${approve}`, { method: 'POST', body: payload });
    const start = async (tools: unknown[], say = 'Go.') =>
      (
        await jobs.runFlow({
          ...inMain,
          value: { modules: [agentStep({ user_message: fixed(say) }, { tools })] },
        })
      ).job_id;
    /** The flow's agent step once it is parked: its job suspended, its actions so far. */
    const parked = (flowId: string) =>
      waitFor(
        async () => {
          const stepJob = (await jobs.get({ ...inMain, id: flowId })).flow_status?.modules[0]?.job;
          if (!stepJob) return undefined;
          const step = await jobs.get({ ...inMain, id: stepJob });
          return step.status === 'suspended' ? step : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 100, description: 'the agent step to park' },
      );
    const gatedAdd = { ...addTool, requires_approval: true };
    const multiply = {
      id: 'multiplier',
      summary: 'multiply',
      value: { ...addTool.value, content: 'export function main(a: number, b: number) { return a * b; }' },
    };
    /** A run whose agent asked to add 1 and 1 and parked for approval; it answers "Understood." next. */
    const parkedOnOneAdd = async () => {
      fake.reply(
        { toolCalls: [{ id: 'call_add', name: 'add', arguments: '{"a":1,"b":1}' }] },
        { text: 'Understood.' },
      );
      const flowId = await start([gatedAdd]);
      return { flowId, step: await parked(flowId) };
    };
    const lastToolResults = (count: number) =>
      (fake.chatRequests().at(-1)!.body as { messages: unknown[] }).messages.slice(-count);

    it('a call of a tool that requires approval parks the step; the others run; approved, it runs and the agent goes on', async () => {
      const before = fake.chatRequests().length;
      fake.reply(
        {
          toolCalls: [
            { id: 'call_add', name: 'add', arguments: '{"a":2,"b":3}' },
            { id: 'call_mul', name: 'multiply', arguments: '{"a":2,"b":3}' },
          ],
        },
        { text: 'Both done.' },
      );
      const flowId = await start([gatedAdd, multiply]);
      const step = await parked(flowId);
      expect(fake.chatRequests().length - before).toBe(1);
      // The request is on the step, live; the call that needs no approval has already run.
      expect(step.agent_actions).toEqual([
        {
          type: 'tool_call',
          job_id: expect.any(String) as unknown,
          function_name: 'multiply',
          module_id: 'multiplier',
        },
        {
          type: 'approval_request',
          call_id: 'call_add',
          calls: [{ call_id: 'call_add', function_name: 'add', arguments: { a: 2, b: 3 } }],
          timeout_s: 1800,
        },
      ]);
      // Over the Windmill-shaped API too, with the step's job suspended.
      const windmill = (await (await http(`jobs_u/get/${step.id}`)).json()) as Record<string, unknown>;
      expect(windmill).toMatchObject({ suspend: 1, agent_actions: expect.any(Array) as unknown });
      // And live on the flow's module, as Windmill writes them while the step runs.
      const flow = (await (await http(`jobs_u/get/${flowId}`)).json()) as {
        flow_status: { modules: Array<{ agent_actions?: unknown; agent_actions_success?: unknown }> };
      };
      expect(flow.flow_status.modules[0].agent_actions).toEqual(step.agent_actions);
      expect(flow.flow_status.modules[0].agent_actions_success).toEqual([true, true]);

      const answered = await answer(step.id, true, { call_id: 'call_add' });
      expect([answered.status, await answered.json()]).toEqual([200, { outcome: 'resumed' }]);
      const job = await ended(flowId);
      expect(job.status, JSON.stringify(job.result)).toBe('completed');
      expect(job.result).toMatchObject({ output: 'Both done.' });
      expect(lastToolResults(2)).toEqual([
        { role: 'tool', tool_call_id: 'call_add', content: '5' },
        { role: 'tool', tool_call_id: 'call_mul', content: '6' },
      ]);
      expect(job.flow_status!.modules[0].agent_actions!.map((action) => action.type)).toEqual([
        'tool_call',
        'approval_request',
        'answer',
        'tool_call',
        'message',
      ]);
      expect(job.flow_status!.modules[0].agent_actions![2]).toMatchObject({
        type: 'answer',
        call_id: 'call_add',
        approved: true,
      });
      // Answered once: a second answer finds nothing waiting.
      expect((await answer(step.id, true, { call_id: 'call_add' })).status).toBe(404);
    });

    it('a streaming step goes on with its stream where it parked: one seq run, the approved call announced once', async () => {
      // Said before it parks (the first segment) and after (the second).
      fake.reply(
        {
          text: 'Let me add. ',
          toolCalls: [{ id: 'call_add', name: 'add', arguments: '{"a":2,"b":3}' }],
          deltaSize: 4,
        },
        { text: 'The sum is 5.', deltaSize: 3 },
      );
      const flowId = (
        await jobs.runFlow({
          ...inMain,
          value: {
            modules: [
              agentStep({ user_message: fixed('Add.'), streaming: fixed(true) }, { tools: [gatedAdd] }),
            ],
          },
        })
      ).job_id;
      const step = await parked(flowId);
      expect((await answer(step.id, true, { call_id: 'call_add' })).status).toBe(200);
      const job = await ended(flowId);
      expect(job.status, JSON.stringify(job.result)).toBe('completed');
      const streamed = (await readStream(flowId))
        .slice(0, -1)
        .map(
          (message) =>
            message.data as { seq: number; event: { type: string; call_id?: string; content?: string } },
        );
      expect(streamed.map((envelope) => envelope.seq)).toEqual(streamed.map((_, i) => i));
      const of = (type: string) => streamed.filter((envelope) => envelope.event.type === type);
      expect(of('tool_execution').map((envelope) => envelope.event.call_id)).toEqual(['call_add']);
      expect(of('tool_result').map((envelope) => envelope.event.call_id)).toEqual(['call_add']);
      expect(
        of('token_delta')
          .map((envelope) => envelope.event.content)
          .join(''),
      ).toBe('Let me add. The sum is 5.');
    });

    it("a rejected call is not run: the model is told who rejected it and why (Windmill's resume_suspended; only who may read the job answers)", async () => {
      const { flowId, step } = await parkedOnOneAdd();
      const resumeSuspended = (body: unknown, token = actor.token) =>
        fetch(`${mesh.urls['flow-orchestrator']}/api/w/main/jobs_u/flow/resume_suspended/${step.id}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      // A member who may not read the admin's run may not answer it: as if it did not wait.
      const identity = createRegistryIdentityClient(new MeshClient(conn));
      const member = `member${randomBytes(3).toString('hex')}`;
      await identity.addUser({ ...inMain, email: `${member}@example.test`, username: member });
      const memberToken = (await identity.createApiToken({ ...inMain, username: member, label: 'test' }))
        .token;
      const stranger = await resumeSuspended(
        { payload: { call_id: 'call_add' }, approved: true },
        memberToken,
      );
      expect(stranger.status).toBe(404);
      // Windmill's approval_token is not offered: refused naming the field.
      const tokened = await resumeSuspended({ payload: { call_id: 'call_add' }, approval_token: 'x' });
      expect([tokened.status, ((await tokened.json()) as { message: string }).message]).toEqual([
        400,
        expect.stringContaining('approval_token: is not supported') as unknown,
      ]);
      expect((await jobs.get({ ...inMain, id: step.id })).status).toBe('suspended');
      // As issue 22 gives Windmill's payload: its own `approved: false` rejects (the body's defaults to true).
      const rejected = await resumeSuspended({
        payload: { call_id: 'call_add', approved: false, comment: 'not today' },
      });
      expect([rejected.status, await rejected.text()]).toEqual([201, 'job resumed']);
      const job = await ended(flowId);
      expect(job.status, JSON.stringify(job.result)).toBe('completed');
      const [result] = lastToolResults(1) as { content: string }[];
      // An error result reaches an OpenAI-shaped model as text marked "Error:".
      expect(JSON.parse(result.content.replace(/^Error: /, ''))).toEqual({
        error: expect.stringMatching(/^not run: \S+ rejected the call: not today$/) as unknown,
      });
      expect(job.flow_status!.modules[0].agent_actions!.map((action) => action.type)).toEqual([
        'approval_request',
        'answer',
        'message',
      ]);
    });

    it('the signed links resume_urls makes for the parked job answer it too, a forged one nothing', async () => {
      const { flowId, step } = await parkedOnOneAdd();
      const urls = (await (await http(`jobs/resume_urls/${step.id}/0?approver=alice`)).json()) as {
        resume: string;
        cancel: string;
      };
      // Signed for the configured public URL: sent here to the orchestrator itself.
      const post = (url: string, body: unknown) => {
        const { pathname, search } = new URL(url);
        return fetch(`${mesh.urls['flow-orchestrator']}${pathname}${search}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      };
      // No bearer token: the signature is the right; a changed one is refused and changes nothing.
      const signature = new URL(urls.cancel).pathname.split('/').at(-1)!;
      const other = `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`;
      const forged = await post(urls.cancel.replace(signature, other), { call_id: 'call_add' });
      expect(forged.status).toBe(403);
      expect((await jobs.get({ ...inMain, id: step.id })).status).toBe('suspended');
      const cancelled = await post(urls.cancel, { call_id: 'call_add', comment: 'by link' });
      expect([cancelled.status, await cancelled.json()]).toEqual([200, { outcome: 'resumed' }]);
      const job = await ended(flowId);
      expect(job.status, JSON.stringify(job.result)).toBe('completed');
      const [result] = lastToolResults(1) as { content: string }[];
      expect(JSON.parse(result.content.replace(/^Error: /, ''))).toEqual({
        error: 'not run: alice rejected the call: by link',
      });
      // Answered: the resume link finds nothing waiting.
      expect((await post(urls.resume, { call_id: 'call_add' })).status).toBe(404);
    });

    it('ask_question parks the step, holding no process nor slot (kill -9 meanwhile), until the user answers; an answer naming an earlier request is ignored', async () => {
      const question = { id: 'ask', summary: 'Ask', value: { tool_type: 'question', timeout_s: 600 } };
      fake.reply({
        toolCalls: [
          {
            id: 'call_q',
            name: 'ask_question',
            arguments: '{"question":"Which colour?","choices":["red","blue"]}',
          },
        ],
      });
      const flowId = await start([question]);
      const step = await parked(flowId);
      const asked = fake.chatRequests().at(-1)!.body as SentChat;
      // Parked, it holds no process: agent-runtime killed and started again, and its only slot
      // (FLOWMESH_AGENT_MAX_RUNS=1) runs another step meanwhile.
      await runtime.kill();
      runtime = await startOwnProcess(mesh, 'agent-runtime', runtimeEnv, keep);
      fake.reply({ text: 'Meanwhile.' });
      const meanwhile = await run([agentStep({ user_message: fixed('Meanwhile?') })]);
      expect([meanwhile.status, meanwhile.result]).toEqual([
        'completed',
        expect.objectContaining({ output: 'Meanwhile.' }),
      ]);
      expect((await jobs.get({ ...inMain, id: step.id })).status).toBe('suspended');
      fake.reply({ text: 'Blue it is.' });
      expect(step.agent_actions).toEqual([
        {
          type: 'question',
          call_id: 'call_q',
          question: 'Which colour?',
          choices: ['red', 'blue'],
          timeout_s: 600,
        },
      ]);
      // The model was offered the built-in tool.
      expect(asked.tools!.map((tool) => tool.function.name)).toEqual(['ask_question']);

      expect(await (await answer(step.id, true, { call_id: 'call_old', answer: 'red' })).json()).toEqual({
        outcome: 'waiting',
      });
      const noAnswer = await answer(step.id, true, { call_id: 'call_q' });
      expect([noAnswer.status, ((await noAnswer.json()) as { message: string }).message]).toEqual([
        400,
        'payload.answer: is required to answer a question',
      ]);
      // From a terminal: flags that contradict each other are refused, then the answer is given.
      const cli = (...args: string[]) =>
        runFlowmesh(['jobs', 'resume', step.id, ...args], {
          env: { FLOWMESH_URL: mesh.urls['flow-orchestrator'], FLOWMESH_TOKEN: actor.token },
          timeoutMs: 60_000,
        });
      const contradicted = await cli('--reject', '--answer', 'blue');
      expect([contradicted.code, contradicted.stderr]).toEqual([
        1,
        'INVALID_ARGUMENT: --answer answers a question: it cannot --reject\n',
      ]);
      const answered = await cli('--answer', 'blue', '--comment', 'my favourite');
      expect([answered.code, answered.stdout]).toEqual([0, '{"outcome":"resumed"}\n']);
      const job = await ended(flowId);
      expect(job.result).toMatchObject({ output: 'Blue it is.' });
      expect(lastToolResults(1)).toEqual([
        { role: 'tool', tool_call_id: 'call_q', content: '{"answer":"blue","comment":"my favourite"}' },
      ]);
    });

    it('a linked agent edited while parked resumes with its new definition: an approved call whose tool left it is no longer available', async () => {
      const items = createRegistryItemsClient(new MeshClient(conn));
      const path = `f/ai/gated_${randomBytes(3).toString('hex')}`;
      const definition = (prompt: string, tools: unknown[]) => ({
        provider: PROVIDER,
        system_prompt: prompt,
        tools,
      });
      await items.createResource({
        ...inMain,
        path,
        resource_type: 'ai_agent',
        value: definition('You add, once approved.', [gatedAdd, multiply]),
      });
      const before = fake.chatRequests().length;
      fake.reply(
        { toolCalls: [{ id: 'call_add', name: 'add', arguments: '{"a":2,"b":3}' }] },
        { text: 'Adding is gone.' },
      );
      const flowId = (
        await jobs.runFlow({
          ...inMain,
          value: {
            modules: [
              {
                id: 'agent',
                value: { type: 'aiagent', agent: path, input_transforms: { user_message: fixed('Add.') } },
              },
            ],
          },
        })
      ).job_id;
      const step = await parked(flowId);
      await items.updateResourceValue({
        ...inMain,
        path,
        value: definition('You only multiply now.', [multiply]),
      });
      expect((await answer(step.id, true, { call_id: 'call_add' })).status).toBe(200);
      const job = await ended(flowId);
      expect(job.status, JSON.stringify(job.result)).toBe('completed');
      const [, resumed] = sentSince(before);
      // The new brain and roster; the conversation goes on (no prompt again), the call not run.
      expect(resumed.messages[0]).toEqual({ role: 'system', content: 'You only multiply now.' });
      expect(resumed.tools!.map((tool) => tool.function.name)).toEqual(['multiply']);
      expect(
        resumed.messages.filter((message) => (message as { role: string }).role === 'user'),
      ).toHaveLength(1);
      const [result] = lastToolResults(1) as { content: string }[];
      expect(JSON.parse(result.content.replace(/^Error: /, ''))).toEqual({
        error:
          "not run: the tool add is no longer available (it left the agent's tools while the call waited for approval)",
      });
      expect(job.flow_status!.modules[0].agent_actions!.map((action) => action.type)).toEqual([
        'approval_request',
        'answer',
        'message',
      ]);
    });

    it('nobody answers: at the timeout the step resumes on its own and the model is told', async () => {
      // `timeout`, as issue 22 spells Windmill's field; `timeout_s` is read first (the test above).
      const question = { id: 'ask', value: { tool_type: 'question', timeout: 1 } };
      fake.reply(
        { toolCalls: [{ id: 'call_q', name: 'ask_question', arguments: '{"question":"Anyone?"}' }] },
        { text: 'Nobody is there.' },
      );
      const flowId = await start([question]);
      await parked(flowId);
      const job = await ended(flowId);
      expect(job.result).toMatchObject({ output: 'Nobody is there.' });
      expect(lastToolResults(1)).toEqual([
        {
          role: 'tool',
          tool_call_id: 'call_q',
          content: `Error: ${JSON.stringify({ error: 'nobody answered within 1 s' })}`,
        },
      ]);
      expect(job.flow_status!.modules[0].agent_actions![1]).toEqual({
        type: 'answer',
        call_id: 'call_q',
        approved: false,
        timed_out: true,
      });
    });

    /** A step parked on a question nobody answers (for 600 s); how many model calls were made by then. */
    const parkOnQuestion = async () => {
      const question = { id: 'ask', value: { tool_type: 'question', timeout_s: 600 } };
      fake.reply({
        toolCalls: [{ id: 'call_q', name: 'ask_question', arguments: '{"question":"Still there?"}' }],
      });
      const flowId = await start([question]);
      const step = await parked(flowId);
      return { flowId, step, asked: fake.chatRequests().length };
    };

    it('an approval nobody gives within FLOWMESH_AGENT_APPROVAL_TIMEOUT_S: the call is not run and the model is told', async () => {
      // A runtime whose approvals wait 1 s; the usual one afterwards.
      const restart = async (env: Record<string, string>) => {
        await runtime.stop();
        runtime = await startOwnProcess(mesh, 'agent-runtime', env, keep);
      };
      await restart({ ...runtimeEnv, FLOWMESH_AGENT_APPROVAL_TIMEOUT_S: '1' });
      try {
        fake.reply(
          { toolCalls: [{ id: 'call_add', name: 'add', arguments: '{"a":1,"b":2}' }] },
          { text: 'Nobody approved.' },
        );
        const flowId = await start([gatedAdd]);
        const job = await ended(flowId);
        expect(job.status, JSON.stringify(job.result)).toBe('completed');
        expect(lastToolResults(1)).toEqual([
          {
            role: 'tool',
            tool_call_id: 'call_add',
            content: `Error: ${JSON.stringify({ error: 'not run: nobody approved the call within 1 s' })}`,
          },
        ]);
        expect(job.flow_status!.modules[0].agent_actions!).toEqual([
          expect.objectContaining({ type: 'approval_request', call_id: 'call_add', timeout_s: 1 }),
          { type: 'answer', call_id: 'call_add', approved: false, timed_out: true },
          expect.objectContaining({ type: 'message' }),
        ]);
      } finally {
        await restart(runtimeEnv);
      }
    });

    it('a step cancelled while parked is dropped at once: nothing more runs', async () => {
      const { flowId, step, asked } = await parkOnQuestion();
      await jobs.cancel({ ...inMain, id: flowId, reason: 'gave up' });
      expect((await ended(flowId)).status).not.toBe('completed');
      await waitFor(() => output.some((line) => line.includes(step.id) && line.includes('it is dropped')), {
        timeoutMs: 20_000,
        description: 'agent-runtime to drop the cancelled step',
      });
      expect(fake.chatRequests().length).toBe(asked);
      expect((await jobs.get({ ...inMain, id: step.id })).status).toBe('cancelled');
    });

    it('a parked step whose job left the queue unheard (cancelled while no agent-runtime ran) is swept: its checkpoint is dropped', async () => {
      const { flowId, step, asked } = await parkOnQuestion();
      // No replica runs to hear the cancel; the one started after sweeps often.
      await runtime.kill();
      await jobs.cancel({ ...inMain, id: flowId, reason: 'gave up' });
      expect((await ended(flowId)).status).not.toBe('completed');
      runtime = await startOwnProcess(
        mesh,
        'agent-runtime',
        { ...runtimeEnv, FLOWMESH_AGENT_SWEEP_MS: '500' },
        keep,
      );
      await waitFor(
        () => output.some((line) => line.includes(step.id) && line.includes('its checkpoint is dropped')),
        { timeoutMs: 30_000, description: 'agent-runtime to sweep the checkpoint of the cancelled step' },
      );
      expect(fake.chatRequests().length).toBe(asked);
      expect((await jobs.get({ ...inMain, id: step.id })).status).toBe('cancelled');
    });

    it('killed while the approved calls run: the next replica does not run again a call that ended, and waits for the one whose job started', async () => {
      const dir = scriptScratchDir('fm-agent-approved-');
      const log = join(dir, 'runs');
      // Each run appends its label; the second one lasts long enough to be killed in.
      const note = {
        id: 'note',
        summary: 'note',
        requires_approval: true,
        value: {
          tool_type: 'flowmodule',
          type: 'rawscript',
          language: 'bun',
          content: [
            "import { appendFileSync } from 'node:fs';",
            'export async function main(label: string) {',
            `  appendFileSync(${JSON.stringify(log)}, label + '\\n');`,
            "  if (label === 'slow') await new Promise((r) => setTimeout(r, 3000));",
            '  return label;',
            '}',
          ].join('\n'),
          input_transforms: { label: { type: 'ai' } },
        },
      };
      const before = fake.chatRequests().length;
      fake.reply(
        {
          toolCalls: [
            { id: 'call_fast', name: 'note', arguments: '{"label":"fast"}' },
            { id: 'call_slow', name: 'note', arguments: '{"label":"slow"}' },
          ],
        },
        { text: 'Noted twice.' },
      );
      const flowId = await start([note]);
      const step = await parked(flowId);
      expect((await answer(step.id, true, { call_id: 'call_fast' })).status).toBe(200);
      // The calls run one after the other: the second's job shows once the first has ended.
      await waitFor(
        async () =>
          (await jobs.get({ ...inMain, id: step.id })).agent_actions?.filter(
            (action) => action.type === 'tool_call',
          ).length === 2,
        { timeoutMs: 60_000, intervalMs: 50, description: 'the second approved call to start' },
      );
      await runtime.kill();
      runtime = await startOwnProcess(mesh, 'agent-runtime', runtimeEnv, keep);
      const job = await ended(flowId);
      expect([job.status, job.result]).toEqual([
        'completed',
        expect.objectContaining({ output: 'Noted twice.' }),
      ]);
      // Each approved call ran once; the model got both results and was asked once more only.
      expect(readFileSync(log, 'utf8')).toBe('fast\nslow\n');
      expect(fake.chatRequests().length - before).toBe(2);
      expect(lastToolResults(2)).toEqual([
        { role: 'tool', tool_call_id: 'call_fast', content: '"fast"' },
        { role: 'tool', tool_call_id: 'call_slow', content: '"slow"' },
      ]);
      const actions = job.flow_status!.modules[0].agent_actions!.map((action) => action.type);
      expect(actions).toEqual(['approval_request', 'answer', 'tool_call', 'tool_call', 'message']);
    }, 120_000);
  });

  describe('MCP tools', () => {
    let mcp: McpTestServer;
    const MCP_KEY = `mcp-${randomBytes(8).toString('hex')}`;
    beforeAll(async () => {
      mcp = await startMcpTestServer(MCP_KEY);
      const items = createRegistryItemsClient(new MeshClient(conn));
      await items.createVariable({ ...inMain, path: 'f/ai/mcp_key', value: MCP_KEY, is_secret: true });
      await items.createResource({
        ...inMain,
        path: 'f/ai/weather_mcp',
        resource_type: 'mcp',
        value: { url: mcp.url, headers: { 'x-api-key': '$var:f/ai/mcp_key' } },
      });
      await items.createResource({
        ...inMain,
        path: 'f/ai/metadata_mcp',
        resource_type: 'mcp',
        value: { url: 'http://169.254.169.254/mcp' },
      });
    });
    afterAll(async () => {
      await mcp?.close();
    });
    const mcpTool = (resource: string, extra: Record<string, unknown> = {}) => ({
      id: 'weather',
      value: { tool_type: 'mcp', resource_path: resource, ...extra },
    });

    it("offers the server's tools (as include/exclude leave them) and runs the model's call on it", async () => {
      const before = fake.chatRequests().length;
      fake.reply(
        { toolCalls: [{ id: 'call_w', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
        { text: 'It is sunny in Paris.' },
      );
      const job = await run([
        agentStep(
          { user_message: fixed('Weather in Paris?'), enabled_tools: fixed(['f/ai/weather_mcp']) },
          { tools: [mcpTool('f/ai/weather_mcp', { exclude_tools: ['forecast'] })] },
        ),
      ]);
      expect(job.status, JSON.stringify(job.result)).toBe('completed');
      const [first, second] = fake
        .chatRequests()
        .slice(before)
        .map((request) => request.body as { messages: unknown[]; tools: Array<{ function: unknown }> });
      expect(first.tools.map((tool) => tool.function)).toEqual([
        {
          name: 'get_weather',
          description: 'The weather in a city',
          parameters: expect.objectContaining({
            type: 'object',
            properties: { city: { type: 'string' } },
            required: ['city'],
          }) as unknown,
        },
      ]);
      expect(second.messages.at(-1)).toEqual({
        role: 'tool',
        tool_call_id: 'call_w',
        content: 'Sunny in Paris',
      });
      expect(job.flow_status!.modules[0].agent_actions?.[0]).toEqual({
        type: 'mcp_tool_call',
        call_id: expect.any(String) as unknown,
        function_name: 'get_weather',
        resource_path: 'f/ai/weather_mcp',
        arguments: { city: 'Paris' },
      });
      // The secret header reached the server, interpolated as the step's identity.
      expect(mcp.requests.length).toBeGreaterThan(0);
      expect(mcp.requests.every((headers) => headers['x-api-key'] === MCP_KEY)).toBe(true);
    });

    it('an MCP server entry with requires_approval: each of its calls parks the step until approved, then runs on the server', async () => {
      const before = mcp.requests.length;
      fake.reply(
        { toolCalls: [{ id: 'call_w', name: 'get_weather', arguments: '{"city":"Oslo"}' }] },
        { text: 'Oslo is sunny.' },
      );
      const gated = {
        ...mcpTool('f/ai/weather_mcp', { exclude_tools: ['forecast'] }),
        requires_approval: true,
      };
      const flowId = (
        await jobs.runFlow({
          ...inMain,
          value: { modules: [agentStep({ user_message: fixed('Weather in Oslo?') }, { tools: [gated] })] },
        })
      ).job_id;
      const step = await waitFor(
        async () => {
          const stepJob = (await jobs.get({ ...inMain, id: flowId })).flow_status?.modules[0]?.job;
          const found = stepJob ? await jobs.get({ ...inMain, id: stepJob }) : undefined;
          return found?.status === 'suspended' ? found : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 100, description: 'the agent step to park' },
      );
      expect(step.agent_actions).toEqual([
        {
          type: 'approval_request',
          call_id: 'call_w',
          calls: [{ call_id: 'call_w', function_name: 'get_weather', arguments: { city: 'Oslo' } }],
          timeout_s: 1800,
        },
      ]);
      const callsWhileParked = mcp.requests.length;
      const approved = await fetch(
        `${mesh.urls['flow-orchestrator']}/api/w/main/jobs/flow/resume/${step.id}?approve=true`,
        {
          method: 'POST',
          headers: { authorization: `Bearer ${actor.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ call_id: 'call_w' }),
        },
      );
      expect(approved.status).toBe(200);
      const job = await ended(flowId);
      expect(job.status, JSON.stringify(job.result)).toBe('completed');
      expect(callsWhileParked).toBeGreaterThan(before); // the server was listed before it parked
      expect((fake.chatRequests().at(-1)!.body as SentChat).messages.at(-1)).toEqual({
        role: 'tool',
        tool_call_id: 'call_w',
        content: 'Sunny in Oslo',
      });
      expect(job.flow_status!.modules[0].agent_actions!.map((action) => action.type)).toEqual([
        'approval_request',
        'answer',
        'mcp_tool_call',
        'message',
      ]);
    });

    it('a server at an internal address the outbound guard refuses fails the step before any model call, naming the tool', async () => {
      const before = fake.chatRequests().length;
      const job = await run([
        agentStep({ user_message: fixed('hi') }, { tools: [mcpTool('f/ai/metadata_mcp')] }),
      ]);
      expect(job.status).toBe('failed');
      expect(job.result).toMatchObject({
        error: {
          name: 'AgentToolError',
          message: expect.stringMatching(
            /^tools\[0\] \(weather\): the MCP server at 169\.254\.169\.254 \(f\/ai\/metadata_mcp\) could not be used: .*(refused|not allowed)/,
          ) as unknown,
        },
      });
      expect(fake.chatRequests().length).toBe(before);
    });
  });

  // The protocol's reference server, as users run it: its own process, streamable HTTP or SSE.
  describe('MCP tools against @modelcontextprotocol/server-everything', () => {
    let streamable: EverythingServer;
    let sse: EverythingServer;
    beforeAll(async () => {
      [streamable, sse] = await Promise.all([startEverythingServer(), startEverythingServer('sse')]);
      const items = createRegistryItemsClient(new MeshClient(conn));
      await items.createResource({
        ...inMain,
        path: 'f/ai/everything',
        resource_type: 'mcp',
        value: { url: streamable.url },
      });
      await items.createResource({
        ...inMain,
        path: 'f/ai/everything_sse',
        resource_type: 'mcp',
        value: { url: sse.url, transport: 'sse' },
      });
    });
    afterAll(async () => {
      await Promise.all([streamable?.close(), sse?.close()]);
    });
    const everything = (resource: string, extra: Record<string, unknown>) => ({
      id: 'everything',
      value: { tool_type: 'mcp', resource_path: resource, ...extra },
    });

    it('offers exactly the included tools; a call that fails answers the model with the error, an image is shown with its result', async () => {
      const before = fake.chatRequests().length;
      fake.reply(
        {
          toolCalls: [
            { id: 'call_sum', name: 'get-sum', arguments: '{"a":"two","b":3}' },
            { id: 'call_img', name: 'get-tiny-image', arguments: '{}' },
          ],
        },
        { text: 'The sum failed; the image is the MCP logo.' },
      );
      const job = await run([
        agentStep(
          { user_message: fixed('Add, then show me the logo') },
          {
            tools: [
              everything('f/ai/everything', {
                include_tools: ['get-sum', 'get-tiny-image', 'echo'],
                exclude_tools: ['echo'],
              }),
            ],
          },
        ),
      ]);
      expect(job.status, JSON.stringify(job.result)).toBe('completed');
      const [first, second] = sentSince(before);
      expect(first.tools?.map((tool) => tool.function.name).sort()).toEqual(['get-sum', 'get-tiny-image']);
      const toolMessages = (second.messages as Array<Record<string, unknown>>).filter(
        (message) => message.role === 'tool',
      );
      expect(toolMessages).toHaveLength(2);
      // The bad arguments are refused by the server: the model reads why, and the loop went on.
      expect(toolMessages[0]).toMatchObject({ tool_call_id: 'call_sum' });
      expect(toolMessages[0].content).toMatch(/^Error: [\s\S]*(number|invalid)/i);
      expect(toolMessages[1]).toEqual({
        role: 'tool',
        tool_call_id: 'call_img',
        content: expect.stringMatching(
          /^Here's the image you requested:\n\[image 1: image\/png, \d+ bytes, attached\]\nThe image above is the MCP logo\.$/,
        ) as unknown,
      });
      // The image itself follows the tool results as the user's turn (OpenAI tool messages are text).
      expect(second.messages.at(-1)).toEqual({
        role: 'user',
        content: [
          {
            type: 'image_url',
            image_url: { url: expect.stringMatching(/^data:image\/png;base64,iVBORw0KGgo/) as unknown },
          },
        ],
      });
      const actions = job.flow_status!.modules[0].agent_actions ?? [];
      expect(
        actions
          .filter((action) => action.type === 'mcp_tool_call')
          .map((action) => (action as { function_name: string }).function_name),
      ).toEqual(['get-sum', 'get-tiny-image']);
      // The call whose tool failed reads false beside its action, as Windmill's agent_actions_success.
      const success = job.flow_status!.modules[0].agent_actions_success ?? [];
      expect(success).toHaveLength(actions.length);
      expect(
        Object.fromEntries(
          actions.map((action, i) => [
            (action as { function_name?: string }).function_name ?? action.type,
            success[i],
          ]),
        ),
      ).toMatchObject({ 'get-sum': false, 'get-tiny-image': true, message: true });
      // The result and memory keep the image's name, never its bytes.
      expect(JSON.stringify(job.result)).not.toContain('iVBORw0KGgo');
    });

    it('reaches a server over the SSE transport', async () => {
      const before = fake.chatRequests().length;
      fake.reply(
        { toolCalls: [{ id: 'call_echo', name: 'echo', arguments: '{"message":"over sse"}' }] },
        { text: 'It echoed.' },
      );
      const job = await run([
        agentStep(
          { user_message: fixed('Echo something') },
          { tools: [everything('f/ai/everything_sse', { include_tools: ['echo'] })] },
        ),
      ]);
      expect(job.status, JSON.stringify(job.result)).toBe('completed');
      const [, second] = sentSince(before);
      expect(second.messages.at(-1)).toEqual({
        role: 'tool',
        tool_call_id: 'call_echo',
        content: 'Echo: over sse',
      });
    });
  });

  describe('compaction memory', () => {
    /** A tool whose result is `size` x's: long context on demand. */
    const bigTool = (size: number) => ({
      id: 'big',
      summary: 'lookup',
      description: 'Looks something up',
      value: {
        tool_type: 'flowmodule',
        type: 'rawscript',
        language: 'bun',
        content: `export function main() { return 'x'.repeat(${size}); }`,
        input_transforms: {},
      },
    });
    const lookup = (id: string) => ({ toolCalls: [{ id, name: 'lookup', arguments: '{}' }] });
    const bodies = (from: number) =>
      fake
        .chatRequests()
        .slice(from)
        .map(
          (request) =>
            request.body as {
              messages: Array<{ role: string; content: unknown }>;
              tools?: unknown;
              temperature?: number;
              max_completion_tokens?: number;
            },
        );
    const summaryOf = (text: string) => ({
      role: 'user',
      content: `[Summary of the earlier conversation]\n${text}`,
    });

    /** One agent step with `compaction` memory in a 2 000-token window (unless `inputs` set one), the lookup tool. */
    const runCompacting = (inputs: Record<string, unknown>) =>
      run([
        agentStep(
          { memory: fixed({ kind: 'compaction', context_window: 2_000 }), ...inputs },
          { tools: [bigTool(2_400)] },
        ),
      ]);

    it('bounds a stateless run: at the input budget the older rounds become a summary, the record keeps them all', async () => {
      const before = fake.chatRequests().length;
      // A 2 000-token window: 400 reserved, compaction at 1 600, 800 retained.
      fake.reply(
        lookup('call_1'),
        { ...lookup('call_2'), usage: { prompt_tokens: 1_300, completion_tokens: 5 } },
        { text: 'The user asked for a lookup; it returned 2400 x.' },
        { text: 'Done: two lookups.' },
      );
      const job = await runCompacting({
        user_message: fixed('Look it up twice'),
        temperature: fixed(0.3),
      });
      expect(job.status, JSON.stringify(job.result)).toBe('completed');
      const [, second, summary, last] = bodies(before);
      // The summary request: the transcript as labelled text, no tools, none of the step's settings.
      expect(summary.tools).toBeUndefined();
      expect(summary.temperature).toBeUndefined();
      expect(summary.max_completion_tokens).toBe(400);
      expect(summary.messages[0]).toMatchObject({
        role: 'system',
        content: expect.stringMatching(/handoff summar/) as unknown,
      });
      expect(summary.messages[1]?.content).toMatch(
        /^\[user\]\nLook it up twice\n\n\[assistant calls tool lookup \(call_1\)\]/,
      );
      // The next call sees the summary in place of the first round, then the second round as it was.
      expect(last.messages).toEqual([
        summaryOf('The user asked for a lookup; it returned 2400 x.'),
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_2', type: 'function', function: { name: 'lookup', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'call_2', content: expect.stringMatching(/^"x{2400}"$/) as unknown },
      ]);
      expect(second.messages).toHaveLength(3);
      expect(last.temperature).toBe(0.3);
      // The execution record is whole; the summary's tokens count in the step's usage.
      const result = job.result as { messages: unknown[]; usage: { input_tokens: number } };
      expect(result.messages).toHaveLength(6);
      expect(result.usage.input_tokens).toBe(10 + 1_300 + 10 + 10);
      // The flow viewer's actions are the run's own, in order: the summary is none of them.
      expect(job.flow_status!.modules[0].agent_actions).toEqual([
        expect.objectContaining({ type: 'tool_call', function_name: 'lookup' }),
        expect.objectContaining({ type: 'tool_call', function_name: 'lookup' }),
        { type: 'message', content: 'Done: two lookups.' },
      ]);
    });

    it('a prompt the provider refuses as too long: older rounds summarized, the same call once more', async () => {
      const before = fake.chatRequests().length;
      fake.reply(
        lookup('call_a'),
        lookup('call_b'),
        {
          error: {
            status: 400,
            message: "This model's maximum context length is 128000 tokens.",
            code: 'context_length_exceeded',
          },
        },
        { text: 'One lookup was made.' },
        { text: 'Finished.' },
      );
      const job = await run([
        agentStep(
          { user_message: fixed('Look up'), memory: fixed({ kind: 'compaction' }) },
          { tools: [bigTool(10)] },
        ),
      ]);
      expect(job.result).toMatchObject({ output: 'Finished.' });
      const sent = bodies(before);
      expect(sent).toHaveLength(5);
      // The reserve (20 % of gpt-4o-mini's 128 000) within the most the model answers (16 384).
      expect(sent[3]?.max_completion_tokens).toBe(16_384);
      expect(sent[4]?.messages[0]).toEqual(summaryOf('One lookup was made.'));
      expect(sent[4]?.messages).toHaveLength(3);
    });

    /**
     * A saved flow of one agent step with `compaction` memory under `memoryId` (memory is kept per
     * saved flow); the returned function runs it with `say` as the user message.
     */
    const savedCompactionFlow = async (path: string, memoryId: string, tools: unknown[] = []) => {
      await createRegistryItemsClient(new MeshClient(conn)).createFlow({
        ...inMain,
        path,
        summary: path,
        value: {
          modules: [
            agentStep(
              {
                user_message: { type: 'javascript', expr: 'flow_input.say' },
                memory: fixed({ kind: 'compaction' }),
                memory_id: fixed(memoryId),
              },
              tools.length > 0 ? { tools } : {},
            ),
          ],
        },
      });
      return async (say: string) => ended((await jobs.runFlow({ ...inMain, path, args: { say } })).job_id);
    };

    /** The summary requests among `sent`: no tools, the handoff instruction as system message. */
    const isSummary = (body: { messages: Array<{ role: string; content: unknown }>; tools?: unknown }) =>
      body.tools === undefined &&
      body.messages[0]?.role === 'system' &&
      /handoff summar/.test(String(body.messages[0].content));

    /** The requests as `step` (the agent's own) and `summary`, in order. */
    const sequenceOf = (sent: ReturnType<typeof bodies>) =>
      sent.map((body) => (isSummary(body) ? 'summary' : 'step')).join(' ');

    it("the summary request keeps the summarized messages' media; an attachment counts in the projection", async () => {
      const PNG =
        'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
      await putObject('attachments/main/chart.png', Buffer.from(PNG, 'base64'), 'image/png');
      const before = fake.chatRequests().length;
      // A 4 000-token window: compaction at 3 200. The chart is counted at 1 600 tokens, so the
      // prompt with its round is the older exchange that no longer fits the 1 600 retained.
      fake.reply(
        { ...lookup('m1'), usage: { prompt_tokens: 1_700, completion_tokens: 5 } },
        { ...lookup('m2'), usage: { prompt_tokens: 2_700, completion_tokens: 5 } },
        { text: 'A chart was shown; one lookup returned 2400 x.' },
        { text: 'Done.' },
      );
      const job = await runCompacting({
        user_message: fixed('Explain the chart'),
        user_attachments: fixed([{ bucket: s3.bucket, key: 'attachments/main/chart.png' }]),
        memory: fixed({ kind: 'compaction', context_window: 4_000 }),
      });
      expect(job.result).toMatchObject({ output: 'Done.' });
      const sent = bodies(before);
      expect(sequenceOf(sent)).toBe('step step summary step');
      expect(sent[2]?.messages[1]?.content).toEqual([
        {
          type: 'text',
          text: expect.stringMatching(
            /^\[user\]\nExplain the chart\n\(attachment attachments\/main\/chart\.png, image\/png\)/,
          ) as unknown,
        },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
      ]);
      expect(sent[3]?.messages[0]).toEqual(summaryOf('A chart was shown; one lookup returned 2400 x.'));
    });

    it('an empty, failed or oversized summary changes nothing; after three in a row no summary is asked for again', async () => {
      const before = fake.chatRequests().length;
      // A 2 000-token window: compaction at 1 600 input tokens, each round about 640 tokens.
      const over = { prompt_tokens: 1_900, completion_tokens: 5 };
      fake.reply(
        lookup('c1'),
        { ...lookup('c2'), usage: over },
        { text: '' }, // empty
        { ...lookup('c3'), usage: over },
        { error: { status: 400, message: 'Invalid request', code: 'invalid_request_error' } }, // failed
        { ...lookup('c4'), usage: over },
        { text: 'y'.repeat(2_000) }, // 500 tokens, over the 400 reserved for it
        { ...lookup('c5'), usage: over },
        { text: 'Done after five lookups.', usage: over },
      );
      const job = await runCompacting({
        user_message: fixed('Look it up five times'),
      });
      expect(job.result).toMatchObject({ output: 'Done after five lookups.' });
      const sent = bodies(before);
      // Over the budget again at the last call, but three failed in a row: no fourth summary request.
      expect(sequenceOf(sent)).toBe('step step summary step summary step summary step step');
      // Nothing was evicted: the last call carries the prompt and all five rounds as they were.
      expect(sent.at(-1)?.messages).toHaveLength(1 + 5 * 2);
      expect(sent.at(-1)?.messages[0]).toEqual({ role: 'user', content: 'Look it up five times' });
      const log = (await jobs.logs({ ...inMain, id: job.flow_status!.modules[0].job! })).logs;
      expect(log).toContain('3 failures in a row, no more summaries this run');
    });

    it('a run stopped by max_iterations returns its whole execution record, not the compacted context', async () => {
      const before = fake.chatRequests().length;
      fake.reply(
        lookup('i1'),
        { ...lookup('i2'), usage: { prompt_tokens: 1_300, completion_tokens: 5 } },
        { text: 'One lookup of 2400 x.' },
        lookup('i3'),
      );
      const job = await runCompacting({
        user_message: fixed('Keep looking'),
        max_iterations: fixed(3),
      });
      expect(job.result).toMatchObject({ error: { name: 'MaxIterationsReached' } });
      const sent = bodies(before);
      expect(sequenceOf(sent)).toBe('step step summary step');
      expect(sent[3]?.messages[0]).toEqual(summaryOf('One lookup of 2400 x.'));
      // The step's partial result: the prompt and all three rounds, the summarized first one included.
      const step = await jobs.getResult({ ...inMain, id: job.flow_status!.modules[0].job! });
      const messages = (step.result as { messages: Array<{ role: string }> }).messages;
      expect(messages.map((message) => message.role)).toEqual([
        'user',
        'assistant',
        'tool',
        'assistant',
        'tool',
        'assistant',
        'tool',
      ]);
    });

    it('a context-size refusal that a summary cannot cure returns the provider error, retried once, the memory unchanged', async () => {
      const runSaved = await savedCompactionFlow('f/ai/overflow', 'overflow-1');
      const tooLong = {
        error: {
          status: 400,
          message: "This model's maximum context length is 128000 tokens.",
          code: 'context_length_exceeded',
        },
      };
      const before = fake.chatRequests().length;
      fake.reply({ text: 'Noted.' }, tooLong, { text: 'The user said hello.' }, tooLong, {
        text: 'Hi again.',
      });
      expect((await runSaved('Hello')).status).toBe('completed');
      const refused = await runSaved('Tell me more');
      expect(refused.status).toBe('failed');
      expect(refused.result).toMatchObject({
        error: {
          name: 'AgentModelError',
          message: expect.stringMatching(/maximum context length/) as unknown,
        },
      });
      expect((await runSaved('Again')).result).toMatchObject({ output: 'Hi again.' });
      const sent = bodies(before);
      expect(sent).toHaveLength(5);
      // The refused call, the summary of the older exchange, the same call once more (refused).
      expect(isSummary(sent[2])).toBe(true);
      expect(sent[2]?.messages[1]?.content).toMatch(/^\[user\]\nHello\n\n\[assistant\]\nNoted\./);
      expect(sent[3]?.messages).toEqual([
        summaryOf('The user said hello.'),
        { role: 'user', content: 'Tell me more' },
      ]);
      // The failed run saved nothing: the next one replays the memory of the first, unsummarized.
      expect(sent[4]?.messages).toEqual([
        { role: 'user', content: 'Hello' },
        { role: 'assistant', content: 'Noted.' },
        { role: 'user', content: 'Again' },
      ]);
    });

    it('only a context-size refusal is answered with a summary, and only when something older can be summarized', async () => {
      const before = fake.chatRequests().length;
      fake.reply(
        lookup('u1'),
        { error: { status: 400, message: 'Invalid tool schema', code: 'invalid_request_error' } },
        {
          error: {
            status: 400,
            message: "This model's maximum context length is 128000 tokens.",
            code: 'context_length_exceeded',
          },
        },
      );
      const step = (say: string) =>
        agentStep(
          { user_message: fixed(say), memory: fixed({ kind: 'compaction' }) },
          { tools: [bigTool(10)] },
        );
      // An unrelated error after a tool round: no summary, no retry.
      const unrelated = await run([step('Look up')]);
      expect(unrelated.result).toMatchObject({
        error: { message: expect.stringMatching(/Invalid tool schema/) as unknown },
      });
      // A refusal of the prompt alone: nothing older to summarize, the error as the provider gave it.
      const alone = await run([step('Just this')]);
      expect(alone.result).toMatchObject({
        error: {
          message: expect.stringMatching(/maximum context length/) as unknown,
          class: 'context_window_exceeded',
        },
      });
      expect(bodies(before).filter(isSummary)).toHaveLength(0);
      expect(bodies(before)).toHaveLength(3);
    });

    it('a memory still over the limit after its checkpoint failed keeps the largest suffix starting with a user message, and says what it left out', async () => {
      const runSaved = await savedCompactionFlow('f/ai/suffix', 'suffix-1');
      const before = fake.chatRequests().length;
      fake.reply(
        { text: 'First read.' },
        { text: 'Second read.' },
        { error: { status: 400, message: 'Invalid request', code: 'invalid_request_error' } }, // the checkpoint
        { text: 'You sent two texts.' },
      );
      // 60 KB each: one fits memory-service's 100 KB, both do not.
      expect((await runSaved(`First: ${'a'.repeat(60_000)}`)).status).toBe('completed');
      const second = await runSaved(`Second: ${'b'.repeat(60_000)}`);
      expect(second.result).toMatchObject({ output: 'Second read.' });
      const log = (await jobs.logs({ ...inMain, id: second.flow_status!.modules[0].job! })).logs;
      expect(log).toMatch(
        /the 1 oldest exchange\(s\) \(2 messages, \d+ bytes\) were left out of the saved memory/,
      );
      expect((await runSaved('How many?')).result).toMatchObject({ output: 'You sent two texts.' });
      const sent = bodies(before);
      expect(sequenceOf(sent)).toBe('step step summary step');
      // The saved suffix: the second exchange, then this run's prompt.
      expect(sent[3]?.messages).toEqual([
        { role: 'user', content: `Second: ${'b'.repeat(60_000)}` },
        { role: 'assistant', content: 'Second read.' },
        { role: 'user', content: 'How many?' },
      ]);
    });

    it('a memory whose newest exchange alone is over the limit is not saved: the answer succeeds, the log says the previous memory stays', async () => {
      const runSaved = await savedCompactionFlow('f/ai/huge', 'huge-1');
      const before = fake.chatRequests().length;
      // The checkpoint summarizes the older exchange, but the newest alone is still over the limit.
      fake.reply(
        { text: 'Short.' },
        { text: 'Read it.' },
        { text: 'The user said hi.' },
        { text: 'You said hi.' },
      );
      expect((await runSaved('hi')).status).toBe('completed');
      // 120 KB in one user message: over memory-service's 100 KB even after a checkpoint.
      const huge = await runSaved(`Read this: ${'z'.repeat(120_000)}`);
      expect(huge.result).toMatchObject({ output: 'Read it.' });
      const log = (await jobs.logs({ ...inMain, id: huge.flow_status!.modules[0].job! })).logs;
      expect(log).toMatch(/memory not saved: .*the next run loads the previous memory/);
      expect((await runSaved('What did I say?')).result).toMatchObject({ output: 'You said hi.' });
      const sent = bodies(before);
      expect(sequenceOf(sent)).toBe('step step summary step');
      expect(sent[2]?.messages[1]?.content).toBe('[user]\nhi\n\n[assistant]\nShort.');
      expect(sent[3]?.messages).toEqual([
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'Short.' },
        { role: 'user', content: 'What did I say?' },
      ]);
    });

    it('a memory over its size limit is checkpointed into a summary, which the next run replays', async () => {
      const runSaved = await savedCompactionFlow('f/ai/research', 'research-1', [bigTool(60_000)]);
      const before = fake.chatRequests().length;
      // Two 60 KB results: 120 KB of memory, over memory-service's 100 KB.
      fake.reply(
        lookup('r1'),
        lookup('r2'),
        { text: 'Both came back.' },
        { text: 'Two lookups of 60000 x.' },
      );
      const researched = await runSaved('Research it');
      expect(researched.status).toBe('completed');
      // Three model calls and the checkpoint's summary, 10 input tokens each, in the step's usage.
      expect(researched.result).toMatchObject({ usage: { input_tokens: 4 * 10 } });
      fake.reply({ text: 'You researched twice.' });
      expect((await runSaved('What did I do?')).result).toMatchObject({ output: 'You researched twice.' });
      const sent = bodies(before);
      expect(sent).toHaveLength(5);
      expect(sent[3]?.messages[1]?.content).toMatch(/^\[user\]\nResearch it/);
      expect(sent[4]?.messages).toEqual([
        summaryOf('Two lookups of 60000 x.'),
        { role: 'assistant', content: 'Both came back.' },
        { role: 'user', content: 'What did I do?' },
      ]);
    });
  });

  it('nothing is lost: steps beyond FLOWMESH_AGENT_MAX_RUNS wait their turn, and a killed agent-runtime’s step is run by the next', async () => {
    // One slot: the second of two parallel steps waits in the table, then is claimed.
    fake.setDefaultReply({ text: 'ok' });
    const parallel = await run([
      {
        id: 'both',
        value: {
          type: 'branchall',
          parallel: true,
          branches: [
            { modules: [{ ...agentStep({ user_message: fixed('one') }), id: 'one' }] },
            { modules: [{ ...agentStep({ user_message: fixed('two') }), id: 'two' }] },
          ],
        },
      },
    ]);
    expect([parallel.status, parallel.result]).toEqual([
      'completed',
      [expect.objectContaining({ output: 'ok' }), expect.objectContaining({ output: 'ok' })],
    ]);

    // Killed while its tool runs: the next replica goes on from that turn. The tool job the dead
    // replica started is waited for, not started again; the model is not asked that turn again.
    const dir = scriptScratchDir('fm-agent-naps-');
    const napTool = {
      id: 'nap',
      summary: 'nap',
      value: {
        tool_type: 'flowmodule',
        type: 'rawscript',
        language: 'bun',
        content: [
          "import { appendFileSync } from 'node:fs';",
          'export async function main() {',
          `  appendFileSync(${JSON.stringify(join(dir, 'naps'))}, 'nap\\n');`,
          '  await new Promise((r) => setTimeout(r, 1500));',
          '  return "rested";',
          '}',
        ].join('\n'),
        input_transforms: {},
      },
    };
    fake.setDefaultReply(undefined);
    const before = fake.chatRequests().length;
    fake.reply(
      { toolCalls: [{ id: 'call_nap', name: 'nap', arguments: '{}' }] },
      { toolCalls: [{ id: 'call_nap2', name: 'nap', arguments: '{}' }] },
      { text: 'Rested.' },
    );
    const id = (
      await jobs.runFlow({
        ...inMain,
        value: {
          modules: [agentStep({ user_message: fixed('rest'), streaming: fixed(true) }, { tools: [napTool] })],
        },
      })
    ).job_id;
    // The step shows its first tool job once the run's progress holds it.
    await waitFor(
      async () => {
        const stepJob = (await jobs.get({ ...inMain, id })).flow_status?.modules[0]?.job;
        if (!stepJob) return undefined;
        const step = await jobs.get({ ...inMain, id: stepJob });
        return step.agent_actions?.some((action) => action.type === 'tool_call') ? step : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 50, description: 'the first tool job' },
    );
    await runtime.kill();
    runtime = await startOwnProcess(mesh, 'agent-runtime', runtimeEnv, keep);
    const job = await ended(id);
    expect([job.status, job.result]).toEqual(['completed', expect.objectContaining({ output: 'Rested.' })]);
    // One model call per turn, the first never asked again: the second is given the first nap's
    // result, from the job the dead replica started; each nap ran once.
    expect(fake.chatRequests().length - before).toBe(3);
    expect(sentSince(before)[1].messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'call_nap',
      content: '"rested"',
    });
    expect(readFileSync(join(dir, 'naps'), 'utf8')).toBe('nap\nnap\n');
    const actions = job.flow_status!.modules[0].agent_actions!;
    expect(actions.filter((action) => action.type === 'tool_call')).toHaveLength(2);
    expect(output.some((line) => line.includes('agent step started again after its replica stopped'))).toBe(
      true,
    );
    // The stream goes on where the dead replica's ended: one seq run, nothing said twice.
    const streamed = (await readStream(id))
      .slice(0, -1)
      .map((message) => message.data as { seq: number; event: { type: string; call_id?: string } });
    expect(streamed.map((envelope) => envelope.seq)).toEqual(streamed.map((_, i) => i));
    expect(
      streamed
        .filter((envelope) => envelope.event.type === 'tool_result')
        .map((envelope) => envelope.event.call_id),
    ).toEqual(['call_nap', 'call_nap2']);
    expect(
      streamed
        .filter((envelope) => envelope.event.type === 'tool_execution')
        .map((envelope) => envelope.event.call_id),
    ).toEqual(['call_nap', 'call_nap2']);
  }, 120_000);

  it('a slot that frees takes the step waiting for it at once, not at the next poll', async () => {
    // Polls a third of the lease apart (200 s): only a claim on the freed slot ends this in time.
    await runtime.stop();
    runtime = await startOwnProcess(
      mesh,
      'agent-runtime',
      { ...runtimeEnv, FLOWMESH_AGENT_LEASE_MS: '600000' },
      keep,
    );
    try {
      fake.setDefaultReply({ text: 'ok' });
      const steps = ['one', 'two', 'three'];
      const parallel = await run([
        {
          id: 'all',
          value: {
            type: 'branchall',
            parallel: true,
            branches: steps.map((say) => ({
              modules: [{ ...agentStep({ user_message: fixed(say) }), id: say }],
            })),
          },
        },
      ]);
      expect([parallel.status, parallel.result]).toEqual([
        'completed',
        steps.map(() => expect.objectContaining({ output: 'ok' }) as unknown),
      ]);

      // Answers that come while the slot is busy: each is taken once the slot frees.
      fake.setDefaultReply((request) =>
        (request.body as { messages: { role: string }[] }).messages.at(-1)?.role === 'tool'
          ? { text: 'answered' }
          : {
              toolCalls: [
                {
                  id: 'call_q',
                  name: 'ask_question',
                  arguments: '{"question":"Which?","choices":["a","b"]}',
                },
              ],
            },
      );
      const question = (say: string) => ({
        id: `ask_${say}`,
        value: { tool_type: 'question', timeout_s: 600 },
      });
      const { job_id: flowId } = await jobs.runFlow({
        ...inMain,
        value: {
          modules: [
            {
              id: 'all',
              value: {
                type: 'branchall',
                parallel: true,
                branches: steps.map((say) => ({
                  modules: [
                    { ...agentStep({ user_message: fixed(say) }, { tools: [question(say)] }), id: say },
                  ],
                })),
              },
            },
          ],
        },
      });
      const parkedSteps = await waitFor(
        async () => {
          const { jobs: children } = await jobs.list({ ...inMain, root_job: flowId, include_children: true });
          const agents = children.filter((child) => child.kind === 'aiagent');
          return agents.length === steps.length && agents.every((child) => child.status === 'suspended')
            ? agents
            : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 100, description: 'every agent step to park on its question' },
      );
      await Promise.all(
        parkedSteps.map((step) =>
          jobs.resume({ ...inMain, id: step.id, resume_id: 0, approve: true, payload: { answer: 'a' } }),
        ),
      );
      const answered = await ended(flowId);
      expect([answered.status, answered.result]).toEqual([
        'completed',
        steps.map(() => expect.objectContaining({ output: 'answered' }) as unknown),
      ]);
    } finally {
      fake.setDefaultReply(undefined);
      await runtime.stop();
      runtime = await startOwnProcess(mesh, 'agent-runtime', runtimeEnv, keep);
    }
  }, 180_000);
});
