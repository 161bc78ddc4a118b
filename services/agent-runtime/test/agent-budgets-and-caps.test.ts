import { randomBytes } from 'node:crypto';
import {
  createGatewayBudgetClient,
  createOrchestratorJobsClient,
  createOrchestratorWorkspaceSettingsClient,
  createRegistryIdentityClient,
  createRegistryItemsClient,
  isTerminalJobStatus,
  type GatewayBudgetClient,
  type Job,
  type OrchestratorJobsClient,
} from '@flowmesh/contracts';
import { connectMesh, MeshClient, type MeshConnection } from '@flowmesh/messaging';
import {
  failureOf,
  FlowmeshGrpcClient,
  startFakeOpenAI,
  startMesh,
  startOwnProcess,
  waitFor,
  withFreePorts,
  type FakeOpenAI,
  type OwnProcess,
  type TestMesh,
} from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const KEY = `sk-caps-${randomBytes(12).toString('hex')}`;
const PROVIDER = { kind: 'openai', resource: '$res:f/ai/openai', model: 'gpt-4o-mini' };
const fixed = (value: unknown) => ({ type: 'static', value });
const agentStep = (inputs: Record<string, unknown>, tools: unknown[] = []) => ({
  id: 'agent',
  value: {
    type: 'aiagent',
    input_transforms: { provider: fixed(PROVIDER), ...inputs },
    tools,
  },
});
/** A TypeScript tool the model fills `a` and `b` of. */
const addTool = {
  id: 'adder',
  summary: 'add',
  value: {
    tool_type: 'flowmodule',
    type: 'rawscript',
    language: 'bun',
    content: 'export function main(a: number, b: number) { return a + b; }',
    input_transforms: { a: { type: 'ai' }, b: { type: 'ai' } },
  },
};
/** An agent as a tool of an agent; its own `tools` as given. */
const agentTool = (name: string, tools: unknown[] = []) => ({
  id: name,
  summary: name,
  value: {
    tool_type: 'flowmodule',
    type: 'aiagent',
    input_transforms: { provider: fixed(PROVIDER), user_message: { type: 'ai' } },
    tools,
  },
});

/**
 * Budgets and workspace caps on real agent steps: the orchestrator hands a step to agent-runtime,
 * which calls the model through the llm-gateway (a fake OpenAI behind it). A flow's spend budget
 * stops its step with `budget_exceeded` naming the budget; a run's spend is readable; and the
 * workspace's caps on model calls, tool calls and nesting depth cap a step whatever its flow
 * says, each said in the step's log.
 */
describe('agent steps under budgets and workspace caps', () => {
  let mesh: TestMesh;
  let runtime: OwnProcess;
  let conn: MeshConnection;
  let jobs: OrchestratorJobsClient;
  let budgets: GatewayBudgetClient;
  let fake: FakeOpenAI;
  let grpc: FlowmeshGrpcClient;
  const actor = { token: `fm_caps_${randomBytes(24).toString('base64url')}` };
  const inMain = { actor, workspace: 'main' };
  const output: string[] = [];

  beforeAll(async () => {
    fake = await startFakeOpenAI({ apiKey: KEY });
    let grpcPort = 0;
    mesh = await withFreePorts(1, ([port]) => {
      grpcPort = port!;
      return startMesh({
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
          // Only the orchestrator's service role serves it.
          FLOWMESH_GRPC_PORT: String(port),
          LOG_LEVEL: 'warn',
        },
      });
    });
    grpc = new FlowmeshGrpcClient(`127.0.0.1:${grpcPort}`);
    runtime = await startOwnProcess(mesh, 'agent-runtime', { LOG_LEVEL: 'info' }, (line) => {
      output.push(line);
      if (output.length > 100) output.shift();
    });
    conn = await connectMesh({
      url: mesh.env.NATS_URL,
      name: 'agent-caps-test',
      prefix: mesh.env.FLOWMESH_SUBJECT_PREFIX,
    });
    const client = new MeshClient(conn);
    jobs = createOrchestratorJobsClient(client);
    budgets = createGatewayBudgetClient(client);
    const items = createRegistryItemsClient(client);
    await createRegistryIdentityClient(client).createFolder({ ...inMain, name: 'ai' });
    await items.createVariable({ ...inMain, path: 'f/ai/key', value: KEY, is_secret: true });
    await items.createResource({
      ...inMain,
      path: 'f/ai/openai',
      resource_type: 'openai',
      value: { base_url: `${fake.url}/v1`, api_key: '$var:f/ai/key' },
    });
    // Set before any run, so no process holds the defaults in its cache.
    await createOrchestratorWorkspaceSettingsClient(client).update({
      ...inMain,
      settings: { max_agent_iterations: 2, max_agent_tool_calls: 1, max_agent_depth: 1 },
    });
  }, 600_000);

  afterAll(async () => {
    grpc?.close();
    await conn?.drain().catch(() => undefined);
    await runtime?.stop();
    await mesh?.stop();
    await fake?.close();
  }, 180_000);

  const ended = (id: string): Promise<Job> =>
    waitFor(
      async () => {
        const job = await jobs.get({ ...inMain, id });
        return isTerminalJobStatus(job.status) ? job : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 100, description: `flow ${id} to end` },
    ).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}; agent-runtime said:\n${output.slice(-30).join('\n')}`);
    });
  const run = async (modules: unknown[]): Promise<Job> =>
    ended((await jobs.runFlow({ ...inMain, value: { modules }, args: {} })).job_id);
  const stepLog = async (flow: Job): Promise<string> =>
    (await jobs.logs({ ...inMain, id: flow.flow_status!.modules[0].job! })).logs;

  it("a flow's spend budget stops its agent step with budget_exceeded naming the budget", async () => {
    const items = createRegistryItemsClient(new MeshClient(conn));
    await items.createFlow({
      ...inMain,
      path: 'f/ai/budgeted',
      value: { modules: [agentStep({ user_message: fixed('Hi') })] },
    });
    await budgets.setBudget({ ...inMain, scope: 'flow', target: 'f/ai/budgeted', maxTokens: 10 });
    const asked = fake.chatRequests().length;
    const job = await ended((await jobs.runFlow({ ...inMain, path: 'f/ai/budgeted', args: {} })).job_id);
    expect(job.status).toBe('failed');
    const { error } = job.result as { error: { class: string; fault: string; message: string } };
    expect(error).toMatchObject({ class: 'budget_exceeded', fault: 'user' });
    expect(error.message).toContain('the budget of flow f/ai/budgeted is spent');
    expect(fake.chatRequests().length).toBe(asked);
  });

  it("counts a step's model calls toward its run, readable as the run's spend over NATS and gRPC", async () => {
    fake.reply({ text: 'Hello.', usage: { prompt_tokens: 30, completion_tokens: 12 } });
    const job = await run([agentStep({ user_message: fixed('Hi') })]);
    expect(job.status, JSON.stringify(job.result)).toBe('completed');
    const { spend } = await budgets.listSpend({ ...inMain, scope: 'run', target: job.id });
    expect(spend).toMatchObject([{ scope: 'run', target: job.id, spentTokens: 42, reservedTokens: 0 }]);
    // flowmesh.v1.Budgets: the same use cases, the bearer token as the actor.
    const viaGrpc = await grpc.call(
      'Budgets',
      'ListSpend',
      { workspace: 'main', scope: 'run', target: job.id },
      actor.token,
    );
    // No limit set: proto3 leaves maxTokens and maxUsd out rather than null.
    expect(viaGrpc).toEqual({
      spend: [
        {
          scope: 'run',
          target: job.id,
          spentTokens: 42,
          spentUsd: spend[0].spentUsd,
          reservedTokens: 0,
          reservedUsd: 0,
          updatedAt: spend[0].updatedAt,
        },
      ],
    });
    const set = await grpc.call(
      'Budgets',
      'SetBudget',
      { workspace: 'main', scope: 'run', target: job.id, maxUsd: 2.5 },
      actor.token,
    );
    expect(set).toMatchObject({ scope: 'run', target: job.id, maxUsd: 2.5, spentTokens: 42 });
    const refused = await grpc
      .call('Budgets', 'SetBudget', { workspace: 'main', scope: 'run', maxUsd: 1 }, actor.token)
      .catch((error: unknown) => failureOf(error));
    expect(refused).toMatchObject({ meshCode: 'VALIDATION_FAILED' });
  });

  it('caps max_iterations and tool calls to the workspace’s, and says so in the step’s log', async () => {
    const asked = fake.chatRequests().length;
    fake.reply(
      {
        toolCalls: [
          { id: 'call_1', name: 'add', arguments: '{"a":1,"b":2}' },
          { id: 'call_2', name: 'add', arguments: '{"a":3,"b":4}' },
        ],
      },
      { toolCalls: [{ id: 'call_3', name: 'add', arguments: '{"a":5,"b":6}' }] },
    );
    const job = await run([agentStep({ user_message: fixed('Add.'), max_iterations: fixed(5) }, [addTool])]);
    expect(job.status).toBe('failed');
    expect((job.result as { error: { name: string; message: string } }).error).toMatchObject({
      name: 'MaxIterationsReached',
      message: 'the agent made 2 model calls (max_iterations) without a final answer',
    });
    // Two model calls; of three tool calls, only the first ran.
    const sent = fake.chatRequests().slice(asked);
    expect(sent).toHaveLength(2);
    const results = (
      sent[1].body as { messages: Array<{ role: string; tool_call_id?: string; content: string }> }
    ).messages.filter((message) => message.role === 'tool');
    expect(
      results.map((message) => [message.tool_call_id, message.content.includes('max_agent_tool_calls')]),
    ).toEqual([
      ['call_1', false],
      ['call_2', true],
    ]);
    expect(results[0].content).toBe('3');
    const log = await stepLog(job);
    expect(log).toContain('max_iterations 5 capped to 2 by the workspace (max_agent_iterations)');
    expect(log).toContain(
      '1 tool call(s) refused: the workspace allows at most 1 tool calls per agent step (max_agent_tool_calls)',
    );
  });

  it('offers a nested agent no agent tool at the workspace’s max_agent_depth, and says so', async () => {
    const asked = fake.chatRequests().length;
    fake.reply(
      { toolCalls: [{ id: 'call_h', name: 'helper', arguments: '{"user_message":"Help."}' }] },
      { text: 'Helped.' },
      { text: 'Done.' },
    );
    const job = await run([
      agentStep({ user_message: fixed('Go.') }, [agentTool('helper', [agentTool('deeper')])]),
    ]);
    expect(job.status, JSON.stringify(job.result)).toBe('completed');
    const [top, nested] = fake
      .chatRequests()
      .slice(asked)
      .map((request) => request.body as { tools?: unknown[] });
    expect(top.tools).toHaveLength(1);
    expect(nested.tools).toBeUndefined();
    const call = job.flow_status!.modules[0].agent_actions!.find((action) => action.type === 'tool_call');
    const helperRun = await jobs.get({ ...inMain, id: (call as { job_id: string }).job_id });
    expect(await stepLog(helperRun)).toContain(
      'agent tool(s) deeper left out: this agent is nested 1 deep, and the workspace allows 1 (max_agent_depth)',
    );
  });

  it("shows the workspace's spend and the refused calls on the gateway's /metrics", async () => {
    // The runs above spent tokens, and the flow budget refused a call.
    const metrics = await (await fetch(`${mesh.urls['llm-gateway']}/metrics`)).text();
    expect(metrics).toMatch(/^flowmesh_llm_spend_tokens_total\{[^}]*workspace="main"[^}]*\} [1-9]/m);
    expect(metrics).toMatch(
      /^flowmesh_llm_budget_refusals_total\{(?=[^}]*workspace="main")(?=[^}]*scope="flow")[^}]*\} [1-9]/m,
    );
  });
});
