import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRegistryItemsClient, type RegistryItemsClient } from '@flowmesh/contracts';
import { connectMesh, MeshClient, type MeshConnection } from '@flowmesh/messaging';
import {
  runFlowmesh,
  saveFakeOpenAIProvider,
  startFakeOpenAI,
  startFakeSystemOne,
  startMesh,
  startOwnProcess,
  type FakeOpenAI,
  type FakeSystemOne,
  type OwnProcess,
  type TestMesh,
} from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const OPENAI_KEY = `sk-replay-${randomBytes(12).toString('hex')}`;
const DECISION_KEY = `ts-replay-${randomBytes(12).toString('hex')}`;
const PROVIDER = { kind: 'openai', resource: '$res:f/ai/openai', model: 'gpt-4o-mini' };

/** An agent step with a script tool: the model asks for the tool, then answers with its result. */
const flowWith = (systemPrompt: string) => ({
  summary: 'Adder',
  value: {
    modules: [
      {
        id: 'agent',
        value: {
          type: 'aiagent',
          input_transforms: {
            provider: { type: 'static', value: PROVIDER },
            system_prompt: { type: 'static', value: systemPrompt },
            user_message: { type: 'javascript', expr: "'Add 2 and ' + flow_input.b" },
          },
          tools: [
            {
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
            },
          ],
        },
      },
    ],
  },
});

interface RecordingFileShape {
  case: string;
  calls: Array<{ operation: string; occurrence: number; request: { messages: unknown[] }; answer: unknown }>;
}

// `flowmesh eval run --record` then `--replay` through the whole mesh: the CLI runs the cases, the
// orchestrator hands the agent step to agent-runtime, whose model calls go through the llm-gateway
// to an OpenAI-shaped fake when recording, and to no provider at all when replaying.
describe('flowmesh eval run --record / --replay', () => {
  let mesh: TestMesh;
  let runtime: OwnProcess;
  let conn: MeshConnection;
  let fake: FakeOpenAI;
  let decisions: FakeSystemOne;
  let items: RegistryItemsClient;
  let dir: string;
  const actor = { token: `fm_replay_${randomBytes(24).toString('base64url')}` };
  const inMain = { actor, workspace: 'main' };
  const output: string[] = [];

  const evalRun = (flowFile: string, mode: '--record' | '--replay', ...extra: string[]) =>
    runFlowmesh(
      [
        'eval',
        'run',
        flowFile,
        '--cases',
        join(dir, 'cases.jsonl'),
        '--out',
        join(dir, 'out.jsonl'),
        mode,
        ...extra,
      ],
      {
        env: { FLOWMESH_URL: mesh.entryUrl!, FLOWMESH_TOKEN: actor.token },
        timeoutMs: 120_000,
      },
    );
  const writeFlow = (name: string, systemPrompt: string) => {
    const file = join(dir, name);
    writeFileSync(file, JSON.stringify(flowWith(systemPrompt)));
    return file;
  };

  beforeAll(async () => {
    fake = await startFakeOpenAI({ apiKey: OPENAI_KEY });
    decisions = await startFakeSystemOne({ apiKey: DECISION_KEY });
    mesh = await startMesh({
      processes: ['resource-registry', 'flow-orchestrator', 'flow-orchestrator-worker', 'llm-gateway'],
      env: {
        FLOWMESH_ADMIN_TOKEN: actor.token,
        FLOWMESH_ADMIN_EMAIL: 'admin@example.test',
        FLOWMESH_OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
        LOG_LEVEL: 'warn',
      },
      entry: true,
    });
    runtime = await startOwnProcess(mesh, 'agent-runtime', { LOG_LEVEL: 'warn' }, (line) => {
      output.push(line);
      if (output.length > 100) output.shift();
    });
    conn = await connectMesh({
      url: mesh.env.NATS_URL,
      name: 'replay-test',
      prefix: mesh.env.FLOWMESH_SUBJECT_PREFIX,
    });
    const client = new MeshClient(conn);
    items = createRegistryItemsClient(client);
    await saveFakeOpenAIProvider(client, inMain, fake, OPENAI_KEY);
    dir = mkdtempSync(join(tmpdir(), 'flowmesh-replay-'));
    const cases = [
      { name: 'two and three', args: { b: 3 }, expected: { output: 'The sum is 5.' }, match: 'subset' },
      { name: 'two and four', args: { b: 4 }, expected: { output: 'The sum is 6.' }, match: 'subset' },
    ];
    writeFileSync(join(dir, 'cases.jsonl'), cases.map((c) => JSON.stringify(c)).join('\n') + '\n');
  }, 180_000);

  afterAll(async () => {
    await conn?.drain().catch(() => undefined);
    await runtime?.stop();
    await mesh?.stop();
    await fake?.close();
    await decisions?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 180_000);

  it('records each case to a file, replays it with no provider and no credentials, and fails a changed prompt with a diff', async () => {
    const flow = writeFlow('flow.json', 'You add numbers with the add tool.');
    // Record: each case's model calls reach the fake (a tool call, then the answer).
    fake.reply(
      { toolCalls: [{ id: 'call_a', name: 'add', arguments: '{"a":2,"b":3}' }] },
      { text: 'The sum is 5.' },
      { toolCalls: [{ id: 'call_b', name: 'add', arguments: '{"a":2,"b":4}' }] },
      { text: 'The sum is 6.' },
    );
    const recorded = await evalRun(flow, '--record');
    expect(recorded.code, `${recorded.stderr}\n${output.join('\n')}`).toBe(0);
    expect(fake.chatRequests()).toHaveLength(4);
    const recordings = join(dir, 'cases.recordings');
    expect(recorded.stderr).toContain(`recordings written to ${recordings}`);
    const file = JSON.parse(
      readFileSync(join(recordings, 'two-and-three.json'), 'utf8'),
    ) as RecordingFileShape;
    expect(file.case).toBe('two and three');
    expect(file.calls.map((call) => [call.operation, call.occurrence])).toEqual([
      ['chat', 0],
      ['chat', 0],
    ]);
    // The answers as streamed: the tool call, then the text; the second request carries the tool's result.
    expect(JSON.stringify(file.calls[0].answer)).toContain('call_a');
    expect(JSON.stringify(file.calls[1].answer)).toContain('The sum is 5.');
    expect(JSON.stringify(file.calls[1].request.messages)).toContain('"5"');
    expect(existsSync(join(recordings, 'two-and-four.json'))).toBe(true);

    // Replay with the provider's credentials gone and the fake scripted to answer otherwise: the
    // same results, and not one request reaches the fake.
    await items.deleteResource({ ...inMain, path: 'f/ai/openai' });
    fake.setDefaultReply({ text: 'Not what was recorded.' });
    const replayed = await evalRun(flow, '--replay');
    expect(replayed.code, `${replayed.stderr}\n${output.join('\n')}`).toBe(0);
    expect(replayed.stdout).toMatch(/^two and three\s+pass\s/m);
    expect(replayed.stdout).toMatch(/^two and four\s+pass\s/m);
    expect(fake.chatRequests()).toHaveLength(4);

    // A changed system prompt: each case fails at its first request, the diff naming the field.
    const changed = writeFlow('changed.json', 'You add numbers, always with the add tool.');
    const differs = await evalRun(changed, '--replay');
    expect(differs.code).toBe(1);
    expect(differs.stdout).toMatch(/^two and three\s+FAIL \(replay differs\)\s/m);
    expect(differs.stderr).toContain('replay: the chat request differs from recorded call 0');
    expect(differs.stderr).toMatch(
      / {4}system\n {6}expected: "You add numbers with the add tool\."\n {6}got: +"You add numbers, always with the add tool\."/,
    );
    expect(fake.chatRequests()).toHaveLength(4);
    const records = readFileSync(join(dir, 'out.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as {
            pass: boolean;
            recording?: { mode: string; mismatch?: { differences: unknown[] } };
          },
      )
      .slice(-2);
    expect(records.map((record) => [record.pass, record.recording?.mode])).toEqual([
      [false, 'replay'],
      [false, 'replay'],
    ]);
    expect(records[0].recording?.mismatch?.differences).toEqual([
      {
        path: 'system',
        expected: 'You add numbers with the add tool.',
        got: 'You add numbers, always with the add tool.',
      },
    ]);
  });

  it("a nested agent tool's and a decision step's model calls are recorded and replayed with the run's", async () => {
    // The first test took the provider away: this one records with its own resources.
    await items.createResource({
      ...inMain,
      path: 'f/ai/openai_nested',
      resource_type: 'openai',
      value: { base_url: `${fake.url}/v1`, api_key: OPENAI_KEY },
    });
    await items.createResource({
      ...inMain,
      path: 'f/ai/typesafe',
      resource_type: 'typesafe',
      value: { base_url: decisions.baseUrl, api_key: DECISION_KEY },
    });
    const provider = { type: 'static', value: { ...PROVIDER, resource: '$res:f/ai/openai_nested' } };
    const writer = {
      id: 'writer',
      summary: 'writer',
      description: 'Writes crisp summaries',
      value: {
        tool_type: 'flowmodule',
        type: 'aiagent',
        input_transforms: {
          provider,
          user_message: { type: 'ai' },
          system_prompt: { type: 'static', value: 'You write crisp summaries.' },
        },
      },
    };
    const decide = {
      id: 'triage',
      value: {
        type: 'aidecision',
        input_transforms: {
          provider: {
            type: 'static',
            value: { kind: 'typesafe', resource: '$res:f/ai/typesafe', model: 'jev-latest' },
          },
          state: { type: 'javascript', expr: 'results.planner.output' },
          questions: {
            type: 'static',
            value: {
              intent: {
                type: 'choice',
                instructions: 'What is it?',
                criteria: { report: 'A report', other: 'Else' },
              },
            },
          },
        },
      },
    };
    const planner = {
      id: 'planner',
      value: {
        type: 'aiagent',
        input_transforms: { provider, user_message: { type: 'static', value: 'Plan the report.' } },
        tools: [writer],
      },
    };
    const flow = join(dir, 'nested.json');
    writeFileSync(flow, JSON.stringify({ summary: 'Nested', value: { modules: [planner, decide] } }));
    const cases = join(dir, 'nested.jsonl');
    const expected = { output: { intent: { choice: 'report' } } };
    writeFileSync(cases, `${JSON.stringify({ name: 'plan', expected, match: 'subset' })}\n`);
    fake.reply(
      {
        toolCalls: [{ id: 'call_w', name: 'writer', arguments: '{"user_message":"Summarize: sales rose."}' }],
      },
      { text: 'Sales rose.' },
      { text: 'Summary: Sales rose.' },
    );
    decisions.answer({
      intent: {
        type: 'choice',
        choice: 'report',
        probabilities: { report: 0.9, other: 0.1 },
        confidence: 0.8,
      },
    });
    const before = { chats: fake.chatRequests().length, decisions: decisions.requests.length };
    const recorded = await evalRun(flow, '--record', '--cases', cases);
    expect(recorded.code, `${recorded.stdout}\n${recorded.stderr}\n${output.join('\n')}`).toBe(0);
    const file = JSON.parse(
      readFileSync(join(dir, 'nested.recordings', 'plan.json'), 'utf8'),
    ) as RecordingFileShape;
    expect(file.calls.map((call) => call.operation)).toEqual(['chat', 'chat', 'chat', 'decide']);
    // The nested agent's own request, recorded with the run's.
    expect(JSON.stringify(file.calls[1].request)).toContain('You write crisp summaries.');

    await items.deleteResource({ ...inMain, path: 'f/ai/openai_nested' });
    await items.deleteResource({ ...inMain, path: 'f/ai/typesafe' });
    const replayed = await evalRun(flow, '--replay', '--cases', cases);
    expect(replayed.code, `${replayed.stdout}\n${replayed.stderr}\n${output.join('\n')}`).toBe(0);
    expect(replayed.stdout).toMatch(/^plan\s+pass\s/m);
    expect({ chats: fake.chatRequests().length, decisions: decisions.requests.length }).toEqual({
      chats: before.chats + 3,
      decisions: before.decisions + 1,
    });
  });

  it('an image step of a recorded run fails, saying a picture is not recorded', async () => {
    const flow = join(dir, 'image.json');
    const step = flowWith('You draw.').value.modules[0];
    const inputs = { ...step.value.input_transforms, output_type: { type: 'static', value: 'image' } };
    writeFileSync(
      flow,
      JSON.stringify({
        summary: 'Drawer',
        value: { modules: [{ ...step, value: { ...step.value, tools: [], input_transforms: inputs } }] },
      }),
    );
    const before = fake.chatRequests().length;
    const recorded = await evalRun(flow, '--record', '--recordings', join(dir, 'image.recordings'));
    expect(recorded.code).toBe(1);
    expect(recorded.stdout, recorded.stderr).toMatch(/^two and three\s+FAIL \(run failed\)\s/m);
    const [last] = readFileSync(join(dir, 'out.jsonl'), 'utf8').trim().split('\n').slice(-1);
    expect(JSON.stringify((JSON.parse(last) as { result: unknown }).result)).toContain(
      "'image' is not recorded or replayed: this run records its model calls",
    );
    expect(fake.chatRequests()).toHaveLength(before);
  });

  it('a recording is read and written only in its own workspace, with a token of it', async () => {
    const id = 'a4a7e8d6-3f8a-4b3e-9f59-0c6f4f9d2a11';
    const url = (workspace: string) => `${mesh.entryUrl!}/api/w/${workspace}/ai/recordings/${id}`;
    const put = (workspace: string, token?: string) =>
      fetch(url(workspace), {
        method: 'PUT',
        headers: {
          'content-type': 'application/json',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify({ calls: [] }),
      });
    expect((await put('main')).status).toBe(401);
    expect((await put('main', 'fm_not_a_token')).status).toBe(401);
    expect((await put('main', actor.token)).status).toBe(204);
    // The same id again is refused: a replay takes a new id.
    expect((await put('main', actor.token)).status).toBe(409);
    const read = await fetch(url('main'), { headers: { authorization: `Bearer ${actor.token}` } });
    expect(await read.json()).toEqual({ id, mode: 'replay', calls: [], mismatch: null, unused: 0 });
    // Another workspace's id space holds nothing of main's.
    const elsewhere = await fetch(url('other'), { headers: { authorization: `Bearer ${actor.token}` } });
    expect([401, 403, 404]).toContain(elsewhere.status);
  });
});
