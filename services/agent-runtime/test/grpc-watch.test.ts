import { randomBytes } from 'node:crypto';
import type { AgentStreamEvent } from '@flowmesh/contracts';
import { agentEventFromGrpcJson } from '@flowmesh/contracts/grpc';
import { connectMesh, MeshClient, type MeshConnection } from '@flowmesh/messaging';
import {
  FlowmeshGrpcClient,
  readWatch,
  saveFakeOpenAIProvider,
  startFakeOpenAI,
  startMesh,
  waitFor,
  withFreePorts,
  type FakeOpenAI,
  type TestMesh,
  type WatchEvent,
} from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const OPENAI_KEY = `sk-grpc-${randomBytes(12).toString('hex')}`;
const PROVIDER = { kind: 'openai', resource: '$res:f/ai/openai', model: 'gpt-4o-mini' };
const fixed = (value: unknown) => ({ type: 'static', value });
/** An add tool a person must approve each call of. */
const gatedAdd = {
  id: 'adder',
  summary: 'add',
  requires_approval: true,
  value: {
    tool_type: 'flowmodule',
    type: 'rawscript',
    language: 'bun',
    content: 'export function main(a: number, b: number) { return a + b; }',
    input_transforms: { a: { type: 'ai' }, b: { type: 'ai' } },
  },
};

// WatchJob over gRPC on a run whose streaming AI step parks on its agent's approval request: the
// client goes away while it waits, the approval is given over gRPC (ResumeJob on the step's job),
// and the client comes back with its last offset and gets the rest: agent token deltas and tool
// calls, the steps' starts and finishes, the end; together exactly what a reader from the start gets.
describe('gRPC WatchJob: a streaming AI step', () => {
  let mesh: TestMesh;
  let grpc: FlowmeshGrpcClient;
  let fake: FakeOpenAI;
  let conn: MeshConnection;
  const token = `fm_grpc_${randomBytes(24).toString('base64url')}`;
  const inMain = { actor: { token }, workspace: 'main' };

  beforeAll(async () => {
    fake = await startFakeOpenAI({ apiKey: OPENAI_KEY });
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
          'agent-runtime',
        ],
        env: {
          FLOWMESH_ADMIN_TOKEN: token,
          FLOWMESH_ADMIN_EMAIL: 'admin@example.test',
          FLOWMESH_OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
          // Only the orchestrator's service role serves it.
          FLOWMESH_GRPC_PORT: String(port),
          LOG_LEVEL: 'warn',
        },
      });
    });
    grpc = new FlowmeshGrpcClient(`127.0.0.1:${grpcPort}`);
    conn = await connectMesh({
      url: mesh.env.NATS_URL,
      name: 'grpc-watch-test',
      prefix: mesh.env.FLOWMESH_SUBJECT_PREFIX,
    });
    await saveFakeOpenAIProvider(new MeshClient(conn), inMain, fake, OPENAI_KEY);
  }, 180_000);

  afterAll(async () => {
    grpc?.close();
    await conn?.drain().catch(() => undefined);
    await mesh?.stop();
    await fake?.close();
  }, 180_000);

  const jobs = <T = Record<string, unknown>>(method: string, request: Record<string, unknown>) =>
    grpc.call<T>('Jobs', method, { workspace: 'main', ...request }, token);
  const watch = (
    request: Record<string, unknown>,
    stopAfter: (events: readonly WatchEvent[]) => boolean = () => false,
  ) => readWatch(grpc, { workspace: 'main', ...request }, token, stopAfter);
  const agentEvents = (events: readonly WatchEvent[]): AgentStreamEvent[] =>
    events
      .filter((e) => e.kind === 'agent')
      .map((e) => agentEventFromGrpcJson(e.body.event as Record<string, unknown>)!);

  it('resumes after a disconnect while the step waits for approval, without loss or repeat', async () => {
    fake.reply(
      {
        text: 'Let me add. ',
        toolCalls: [{ id: 'call_add', name: 'add', arguments: '{"a":2,"b":3}' }],
        deltaSize: 4,
      },
      { text: 'The sum is 5.', deltaSize: 3 },
    );
    const { job_id: flowId } = await jobs<{ job_id: string }>('RunFlow', {
      args: {},
      value: {
        modules: [
          {
            id: 'agent',
            value: {
              type: 'aiagent',
              input_transforms: {
                provider: fixed(PROVIDER),
                user_message: fixed('Add 2 and 3.'),
                streaming: fixed(true),
              },
              tools: [gatedAdd],
            },
          },
        ],
      },
    });
    // Connected from the start, until the agent has asked for the call: then gone.
    const first = await watch({ id: flowId }, (events) =>
      agentEvents(events).some((event) => event.type === 'tool_call'),
    );
    const stepJob = await waitFor(
      async () => {
        const flow = await jobs<{ flow_status?: { modules: { job?: string }[] } }>('GetJob', { id: flowId });
        const id = flow.flow_status?.modules[0]?.job;
        if (!id) return undefined;
        return (await jobs<{ status: string }>('GetJob', { id })).status === 'suspended' ? id : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100, description: 'the agent step to park on its approval' },
    );
    // The agent's approval, given over gRPC as the caller.
    expect(await jobs('ResumeJob', { id: stepJob, payload: { call_id: 'call_add' } })).toEqual({
      outcome: 'resumed',
    });

    const rest = await watch({ id: flowId, after: first.at(-1)!.offset });
    const whole = await watch({ id: flowId });
    // The same events, each once (offsets say where a reader stood, so they differ): steps and
    // what the step said are two sources, each in its own order, interleaved as they came.
    const resumed = [...first, ...rest];
    const keys = (events: readonly WatchEvent[]) => events.map((e) => `${e.kind} ${JSON.stringify(e.body)}`);
    expect(new Set(keys(resumed)).size).toBe(resumed.length);
    expect(keys(resumed).sort()).toEqual(keys(whole).sort());
    const seqs = (events: readonly WatchEvent[]) =>
      events.filter((e) => e.kind === 'agent').map((e) => e.body.seq);
    expect(seqs(resumed)).toEqual(seqs(whole));
    expect(resumed.at(-1)).toMatchObject({ kind: 'end', body: { status: 'completed', success: true } });
    expect(whole.at(-1)).toMatchObject({ kind: 'end', body: { status: 'completed', success: true } });
    expect(
      whole.filter((e) => e.kind !== 'agent').map((e) => [e.kind, e.body.step_id ?? e.body.status]),
    ).toEqual([
      ['step_started', 'agent'],
      ['step_finished', 'agent'],
      ['end', 'completed'],
    ]);
    const said = agentEvents(whole);
    const of = <K extends AgentStreamEvent['type']>(type: K) =>
      said.filter((event): event is Extract<AgentStreamEvent, { type: K }> => event.type === type);
    expect(
      of('token_delta')
        .map((event) => event.content)
        .join(''),
    ).toBe('Let me add. The sum is 5.');
    expect(of('tool_call')).toEqual([{ type: 'tool_call', call_id: 'call_add', function_name: 'add' }]);
    expect(of('tool_result')).toEqual([
      { type: 'tool_result', call_id: 'call_add', function_name: 'add', result: '5', success: true },
    ]);
    // Each agent event carries the step's own stream sequence, without a gap.
    const envelopes = whole.filter((e) => e.kind === 'agent').map((e) => e.body.seq as number);
    expect(envelopes).toEqual(envelopes.map((_, i) => i));
  });
});
