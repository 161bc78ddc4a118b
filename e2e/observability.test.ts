import { randomBytes } from 'node:crypto';
import {
  createGatewayBudgetClient,
  createOrchestratorJobsClient,
  createRegistryItemsClient,
  isTerminalJobStatus,
  MESH_PROCESSES,
  type Job,
  type OrchestratorJobsClient,
  type RegistryItemsClient,
} from '@flowmesh/contracts';
import { gatewayChat } from '@flowmesh/gateway-chat';
import { connectMesh, MeshClient, type MeshConnection } from '@flowmesh/messaging';
import { FLOWMESH_METRICS, prometheusSeriesNames } from '@flowmesh/telemetry';
import {
  exportedSpans,
  FakeOtlpCollector,
  scrapeMetrics,
  saveFakeOpenAIProvider,
  startFakeOpenAI,
  startMesh,
  waitFor,
  type ExportedSpan,
  type FakeOpenAI,
  type PrometheusSample,
  type TestMesh,
} from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const OPENAI_KEY = `sk-obs-${randomBytes(12).toString('hex')}`;
const MODEL = 'gpt-4o-mini';
const fixed = (value: unknown) => ({ type: 'static', value });

/** A tool whose result is 2 400 x's: the second round overflows a 2 000-token window (compaction). */
const lookupTool = {
  id: 'big',
  summary: 'lookup',
  description: 'Looks something up',
  value: {
    tool_type: 'flowmodule',
    type: 'rawscript',
    language: 'bun',
    content: "export function main() { return 'x'.repeat(2400); }",
    input_transforms: {},
  },
};
const lookup = (id: string) => ({ toolCalls: [{ id, name: 'lookup', arguments: '{}' }] });

/** A script step, then an AI step with compaction memory kept under a memory id (memory-service). */
const observedFlow = (memoryId: string) => ({
  modules: [
    {
      id: 'hello',
      value: {
        type: 'rawscript',
        language: 'bun',
        content: 'export function main() { return 1; }',
        input_transforms: {},
      },
    },
    {
      id: 'agent',
      value: {
        type: 'aiagent',
        input_transforms: {
          provider: fixed({ kind: 'openai', resource: '$res:f/ai/openai', model: MODEL }),
          user_message: fixed('Look it up twice'),
          memory: fixed({ kind: 'compaction', context_window: 2_000 }),
          memory_id: fixed(memoryId),
        },
        tools: [lookupTool],
      },
    },
  ],
});

/** A flow that parks after its first step until someone approves. */
const approvalFlow = {
  modules: [
    {
      id: 'request',
      value: {
        type: 'rawscript',
        language: 'bun',
        content: "export function main() { return 'please'; }",
        input_transforms: {},
      },
      suspend: { required_events: 1, timeout: 600 },
    },
  ],
};

// The whole mesh, each process on its own with OpenTelemetry exporting to a fake OTLP collector,
// runs a flow with an agent step started over HTTP: every process answers /metrics with the
// mesh's metric families, and the run is one trace from the HTTP call to the model calls.
describe('observability of a run across the mesh', () => {
  let mesh: TestMesh;
  let collector: FakeOtlpCollector;
  let fake: FakeOpenAI;
  let conn: MeshConnection;
  let jobs: OrchestratorJobsClient;
  let items: RegistryItemsClient;
  let job: Job;
  const actor = { token: `fm_obs_${randomBytes(24).toString('base64url')}` };
  const inMain = { actor, workspace: 'main' };
  const traceId = randomBytes(16).toString('hex');
  const callerSpanId = randomBytes(8).toString('hex');

  const ended = (id: string) =>
    waitFor(
      async () => {
        const found = await jobs.get({ ...inMain, id });
        return isTerminalJobStatus(found.status) ? found : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 100, description: `job ${id} to end` },
    );

  beforeAll(async () => {
    collector = new FakeOtlpCollector();
    const otlpUrl = await collector.listen();
    fake = await startFakeOpenAI({ apiKey: OPENAI_KEY });
    mesh = await startMesh({
      env: {
        FLOWMESH_ADMIN_TOKEN: actor.token,
        FLOWMESH_ADMIN_EMAIL: 'admin@example.test',
        FLOWMESH_OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
        OTEL_EXPORTER_OTLP_ENDPOINT: otlpUrl,
        // Spans leave each process soon after they end, so the test waits seconds, not minutes.
        OTEL_BSP_SCHEDULE_DELAY: '200',
        LOG_LEVEL: 'warn',
      },
    });
    conn = await connectMesh({
      url: mesh.env.NATS_URL,
      name: 'observability-test',
      prefix: mesh.env.FLOWMESH_SUBJECT_PREFIX,
    });
    const client = new MeshClient(conn);
    jobs = createOrchestratorJobsClient(client);
    await saveFakeOpenAIProvider(client, inMain, fake, OPENAI_KEY);
    items = createRegistryItemsClient(client);
    await items.createFlow({
      ...inMain,
      path: 'f/ai/observed',
      summary: 'observed',
      value: observedFlow('obs'),
    });

    // Two lookups; the second round passes the input budget: a summary request, then the answer.
    fake.reply(
      lookup('call_1'),
      { ...lookup('call_2'), usage: { prompt_tokens: 1_300, completion_tokens: 5 } },
      { text: 'The user asked for a lookup; it returned 2400 x.' },
      { text: 'Done: two lookups.' },
    );
    const response = await fetch(`${mesh.urls['flow-orchestrator']}/api/w/main/jobs/run/f/f/ai/observed`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${actor.token}`,
        'content-type': 'application/json',
        traceparent: `00-${traceId}-${callerSpanId}-01`,
      },
      body: '{}',
    });
    expect(response.status).toBe(201);
    job = await ended(await response.text());
    await scheduleOneRun();
    await refuseOneCall();
  }, 240_000);

  /** A model call over a run budget of one token: the gateway refuses it (its refusals counted). */
  async function refuseOneCall(): Promise<void> {
    await createGatewayBudgetClient(new MeshClient(conn)).setBudget({
      ...inMain,
      scope: 'run',
      target: 'obs-refused-run',
      maxTokens: 1,
    });
    const chat = await gatewayChat(conn, {
      ...inMain,
      provider: { kind: 'openai', resource: '$res:f/ai/openai', model: MODEL },
      messages: [{ role: 'user', content: [{ type: 'text', text: 'over budget' }] }],
      budget: { run: 'obs-refused-run' },
    });
    expect(await chat.result).toMatchObject({ type: 'error', error: { class: 'budget_exceeded' } });
  }

  /**
   * A script scheduled every second, until the orchestrator has recorded a scheduled run's
   * lateness (when the run ends): the triggers' series are then all exposed. Then it is deleted.
   */
  async function scheduleOneRun(): Promise<void> {
    await items.createScript({
      ...inMain,
      path: 'f/ai/tick',
      summary: 'tick',
      language: 'bun',
      content: 'export function main() { return 1; }',
    });
    const schedules = `${mesh.urls['flow-orchestrator']}/api/w/main/schedules`;
    const headers = { authorization: `Bearer ${actor.token}`, 'content-type': 'application/json' };
    const created = await fetch(`${schedules}/create`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        path: 'f/ai/every_second',
        schedule: '* * * * * *',
        timezone: 'UTC',
        script_path: 'f/ai/tick',
        is_flow: false,
        args: {},
      }),
    });
    expect(created.status, await created.text()).toBe(201);
    await waitFor(
      async () =>
        (await scrapeMetrics(mesh.urls['flow-orchestrator'])).some(
          (s) => s.name === 'flowmesh_trigger_fire_lateness_seconds_count' && s.value > 0,
        ) || undefined,
      { timeoutMs: 90_000, intervalMs: 250, description: 'a scheduled run to end' },
    );
    const deleted = await fetch(`${schedules}/delete/f/ai/every_second`, { method: 'DELETE', headers });
    expect(deleted.status).toBe(200);
  }

  afterAll(async () => {
    await conn?.drain().catch(() => undefined);
    await mesh?.stop();
    await fake?.close();
    await collector?.close();
  }, 120_000);

  it('ran the flow: the script step, then the agent with two tool calls and a compaction', () => {
    expect(job.status, JSON.stringify(job.result)).toBe('completed');
    expect(job.result).toMatchObject({ output: 'Done: two lookups.' });
  });

  describe('/metrics', () => {
    /** The samples of `name` a process exposes, or a failure listing what it does expose. */
    const samplesOf = (samples: PrometheusSample[], name: string) => samples.filter((s) => s.name === name);
    const total = (samples: PrometheusSample[], name: string, labels: Record<string, string> = {}) =>
      samplesOf(samples, name)
        .filter((s) => Object.entries(labels).every(([key, value]) => s.labels[key] === value))
        .reduce((sum, s) => sum + s.value, 0);

    it('is served by every process in the Prometheus text format', async () => {
      for (const process of MESH_PROCESSES) {
        const response = await fetch(`${mesh.urls[process.name]}/metrics`);
        expect(response.status, process.name).toBe(200);
        expect(response.headers.get('content-type'), process.name).toMatch(/^text\/plain/);
        expect(await response.text(), process.name).toMatch(/^# HELP target_info/m);
      }
    });

    it('worker: flows and steps started and finished by status, step durations, queue depth and lag per tag, outbox backlog', async () => {
      const worker = await scrapeMetrics(mesh.urls['flow-orchestrator-worker']);
      expect(total(worker, 'flowmesh_flows_started_total')).toBeGreaterThanOrEqual(1);
      expect(total(worker, 'flowmesh_flows_finished_total', { status: 'completed' })).toBeGreaterThanOrEqual(
        1,
      );
      expect(total(worker, 'flowmesh_steps_started_total', { step_type: 'aiagent' })).toBe(1);
      expect(
        total(worker, 'flowmesh_steps_finished_total', { step_type: 'rawscript', status: 'success' }),
      ).toBe(1);
      expect(
        total(worker, 'flowmesh_steps_finished_total', { step_type: 'aiagent', status: 'success' }),
      ).toBe(1);
      // The agent step's duration spans the worker turns around its park: one sample, a real duration.
      expect(total(worker, 'flowmesh_step_duration_seconds_count', { step_type: 'aiagent' })).toBe(1);
      expect(total(worker, 'flowmesh_step_duration_seconds_sum', { step_type: 'aiagent' })).toBeGreaterThan(
        0,
      );
      for (const gauge of ['flowmesh_queue_depth', 'flowmesh_consumer_lag']) {
        const defaults = samplesOf(worker, gauge).filter((s) => s.labels.tag === 'default');
        expect(defaults.length, `${gauge}{tag="default"}`).toBeGreaterThan(0);
        for (const sample of defaults) expect(sample.value).toBeGreaterThanOrEqual(0);
      }
      expect(samplesOf(worker, 'flowmesh_outbox_backlog').length).toBeGreaterThan(0);
    });

    it('orchestrator: approvals parked, counted while a flow waits at its suspend gate', async () => {
      const parked = await jobs.runFlow({ ...inMain, value: approvalFlow, args: {} });
      await waitFor(async () => (await jobs.get({ ...inMain, id: parked.job_id })).status === 'suspended', {
        timeoutMs: 60_000,
        description: 'the approval flow to park',
      });
      const orchestrator = await scrapeMetrics(mesh.urls['flow-orchestrator']);
      expect(total(orchestrator, 'flowmesh_approvals_parked', { kind: 'flow' })).toBe(1);
      expect(total(orchestrator, 'flowmesh_approvals_parked', { kind: 'agent' })).toBe(0);
      await jobs.cancel({ ...inMain, id: parked.job_id, reason: 'test over' });
    });

    it('agent-runtime: iterations per provider and model, and compactions', async () => {
      const runtime = await scrapeMetrics(mesh.urls['agent-runtime']);
      // Three turns of the loop (two tool rounds and the answer); the summary is not a turn.
      expect(
        total(runtime, 'flowmesh_agent_iterations_total', {
          gen_ai_provider_name: 'openai',
          gen_ai_request_model: MODEL,
        }),
      ).toBe(3);
      expect(total(runtime, 'flowmesh_agent_compactions_total', { outcome: 'summarized' })).toBe(1);
    });

    it('llm-gateway: tokens and cost per provider and model, and the latency the gateway adds', async () => {
      const gateway = await scrapeMetrics(mesh.urls['llm-gateway']);
      const model = { gen_ai_provider_name: 'openai', gen_ai_request_model: MODEL };
      // The fake reports 10 + 5 tokens a call, but 1 300 prompt tokens for the second: four calls.
      expect(total(gateway, 'flowmesh_llm_tokens_total', { ...model, gen_ai_token_type: 'input' })).toBe(
        10 + 1_300 + 10 + 10,
      );
      expect(total(gateway, 'flowmesh_llm_tokens_total', { ...model, gen_ai_token_type: 'output' })).toBe(
        5 + 5 + 5 + 5,
      );
      const cost = total(gateway, 'flowmesh_llm_cost_usd_total', model);
      expect(cost).toBeCloseTo((1_330 * 0.15 + 20 * 0.6) / 1_000_000, 12);
      // The run's four calls, and the one its run budget refused (see refuseOneCall).
      expect(total(gateway, 'flowmesh_gateway_added_latency_seconds_count', { source: 'nats' })).toBe(5);
      expect(total(gateway, 'flowmesh_llm_budget_refusals_total', { scope: 'run' })).toBe(1);
    });

    it('exposes every metric of the catalogue (what the dashboards may query) from some process', async () => {
      const scraped = new Set(
        (await Promise.all(MESH_PROCESSES.map((p) => scrapeMetrics(mesh.urls[p.name]))))
          .flat()
          .map((s) => s.name),
      );
      for (const metric of Object.values(FLOWMESH_METRICS))
        for (const series of prometheusSeriesNames(metric)) expect(scraped, metric.name).toContain(series);
    });

    it('memory-service: memory saves by status and store', async () => {
      const memory = await scrapeMetrics(mesh.urls['memory-service']);
      expect(total(memory, 'flowmesh_memory_saves_total', { status: 'saved' })).toBeGreaterThanOrEqual(1);
    });
  });

  describe('the trace of the run', () => {
    let spans: ExportedSpan[];
    const named = (name: string, service?: string) =>
      spans.filter((s) => s.name === name && (service === undefined || s.service === service));
    /** True when `ancestor` is `span` or above it in the tree. */
    const isBelow = (span: ExportedSpan, ancestor: ExportedSpan): boolean => {
      const byId = new Map(spans.map((s) => [s.spanId, s]));
      for (
        let at: ExportedSpan | undefined = span;
        at;
        at = at.parentSpanId ? byId.get(at.parentSpanId) : undefined
      )
        if (at.spanId === ancestor.spanId) return true;
      return false;
    };

    beforeAll(async () => {
      // Spans arrive in batches from six processes: wait until the model calls and the steps are in
      // and every span's parent is too (the tree is whole).
      spans = await waitFor(
        () => {
          const ours = exportedSpans(collector.received).filter((s) => s.traceId === traceId);
          const ids = new Set(ours.map((s) => s.spanId));
          const chats = ours.filter((s) => s.attributes['gen_ai.operation.name'] === 'chat').length;
          const whole = ours.every((s) => s.parentSpanId === callerSpanId || ids.has(s.parentSpanId ?? ''));
          return chats >= 4 && ours.some((s) => s.name === 'step agent') && whole ? ours : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 200, description: 'the run’s spans from every process' },
      );
    }, 90_000);

    it('starts at the HTTP call, as the child of the caller’s traceparent', () => {
      const roots = spans.filter((s) => s.parentSpanId === callerSpanId);
      expect(roots.map((s) => [s.service, s.kind])).toEqual([['flow-orchestrator', 2]]);
    });

    it('crosses every NATS hop as a send (producer) and a process (consumer) span, in every process it reaches', () => {
      const byId = new Map(spans.map((s) => [s.spanId, s]));
      const consumers = spans.filter((s) => s.kind === 5 && s.attributes['messaging.system'] === 'nats');
      expect(new Set(consumers.map((s) => s.service))).toEqual(
        new Set([
          'resource-registry',
          'flow-orchestrator',
          'flow-orchestrator-worker',
          'agent-runtime',
          'llm-gateway',
          'memory-service',
        ]),
      );
      for (const consumer of consumers) {
        const parent = byId.get(consumer.parentSpanId ?? '');
        expect(parent?.kind, `${consumer.service} ${consumer.name} continues a producer span`).toBe(4);
      }
    });

    it('has a span per step, below the HTTP call; the agent and its model calls below the agent step', () => {
      const [root] = spans.filter((s) => s.parentSpanId === callerSpanId);
      const [hello] = named('step hello', 'flow-orchestrator-worker');
      const agentSteps = named('step agent', 'flow-orchestrator-worker');
      expect(hello).toBeDefined();
      expect(agentSteps.length).toBeGreaterThanOrEqual(1);
      expect(hello.attributes).toMatchObject({
        'flowmesh.step.type': 'rawscript',
        'flowmesh.job.id': job.id,
      });
      expect(isBelow(hello, root)).toBe(true);

      const [invoke] = named('invoke_agent agent', 'agent-runtime');
      expect(invoke).toBeDefined();
      expect(agentSteps.some((step) => isBelow(invoke, step))).toBe(true);

      const tools = named('execute_tool lookup', 'agent-runtime');
      expect(tools).toHaveLength(2);
      for (const tool of tools) expect(isBelow(tool, invoke)).toBe(true);
    });

    it('records each model call with the GenAI conventions, below the agent', () => {
      const [invoke] = named('invoke_agent agent', 'agent-runtime');
      const chats = spans.filter((s) => s.service === 'llm-gateway' && s.name === `chat ${MODEL}`);
      expect(chats).toHaveLength(4);
      for (const chat of chats) {
        expect(chat.kind).toBe(3);
        expect(chat.attributes).toMatchObject({
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': 'openai',
          'gen_ai.request.model': MODEL,
          'gen_ai.usage.output_tokens': 5,
        });
        expect(chat.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
        expect(isBelow(chat, invoke)).toBe(true);
        // No credential in any attribute.
        expect(JSON.stringify(chat.attributes)).not.toContain(OPENAI_KEY);
      }
      expect(invoke.attributes).toMatchObject({
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': MODEL,
      });
    });
  });
});
