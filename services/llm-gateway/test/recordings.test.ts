import { randomUUID } from 'node:crypto';
import {
  createGatewayClient,
  MeshError,
  RecordingAnswerSchema,
  type AiDecisionQuestions,
  type ChatEvent,
  type ChatRequestInput,
  type GatewayClient,
  type RecordingAnswer,
  type RecordingRef,
} from '@flowmesh/contracts';
import { gatewayChat } from '@flowmesh/gateway-chat';
import { startFakeOpenAI, startFakeSystemOne, type FakeOpenAI, type FakeSystemOne } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayCast, type GatewayCast } from './support/gateway-cast.js';

/**
 * Record and replay in the gateway: answers kept by request (streamed and not, tool calls,
 * identical requests in parallel, decisions), replayed with no provider call and no credentials,
 * a changed request failed with the path of what differs; recordings read only in their workspace.
 */

let cast: GatewayCast;
let gateway: GatewayClient;
let openai: FakeOpenAI;
let systemOne: FakeSystemOne;

const KEY = 'sk-recordings-0123456789';
const questions: AiDecisionQuestions = {
  intent: {
    type: 'choice',
    instructions: 'What is wanted?',
    criteria: { refund: 'Money back', bug: 'Broken' },
  },
};
const addTool = { name: 'add', parameters: { type: 'object', properties: { a: { type: 'number' } } } };

beforeAll(async () => {
  [cast, openai, systemOne] = await Promise.all([
    startGatewayCast(),
    startFakeOpenAI({ apiKey: KEY }),
    startFakeSystemOne({ apiKey: KEY }),
  ]);
  gateway = createGatewayClient(cast.registry.client);
  await cast.providerResource('f/ai/openai', 'openai', { base_url: `${openai.url}/v1` }, KEY);
  await cast.providerResource('f/ai/typesafe', 'typesafe', { base_url: systemOne.baseUrl }, KEY);
});

afterAll(async () => {
  await Promise.all([openai?.close(), systemOne?.close()]);
  await cast?.stop();
});

/** A chat as recorded; `resource` differs on replay: the key never holds the credentials' path. */
const chatRequest = (
  recording: RecordingRef,
  extra: Partial<ChatRequestInput> = {},
  resource = 'f/ai/openai',
) => ({
  actor: cast.reader,
  workspace: 'main',
  provider: { kind: 'openai' as const, resource, model: 'gpt-4o-mini' },
  messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'Hi' }] }],
  recording,
  ...extra,
});

async function chat(request: ChatRequestInput): Promise<ChatEvent[]> {
  const events: ChatEvent[] = [];
  for await (const event of await gatewayChat(cast.registry.conn, request)) events.push(event);
  return events;
}

const textOf = (events: ChatEvent[]) => {
  const last = events.at(-1);
  return last?.type === 'message'
    ? last.message.content.map((part) => ('text' in part ? part.text : '')).join('')
    : '';
};

const recordingsUrl = (id: string, workspace = 'main') =>
  `${cast.gateway.url}/api/w/${workspace}/ai/recordings/${id}`;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function read(id: string): Promise<RecordingAnswer> {
  const response = await fetch(recordingsUrl(id), { headers: bearer(cast.reader.token) });
  expect(response.status).toBe(200);
  return RecordingAnswerSchema.parse(await response.json());
}

async function upload(id: string, calls: RecordingAnswer['calls']): Promise<Response> {
  return fetch(recordingsUrl(id), {
    method: 'PUT',
    headers: { ...bearer(cast.reader.token), 'content-type': 'application/json' },
    body: JSON.stringify({ calls }),
  });
}

describe('llm-gateway: record and replay', () => {
  let recorded: RecordingAnswer;
  const record: RecordingRef = { mode: 'record', id: randomUUID() };

  it('records streamed and non-streamed answers, tool calls, identical requests in parallel and decisions', async () => {
    openai.reply({ text: 'first' }, { text: 'second' });
    const twins = await Promise.all([chat(chatRequest(record)), chat(chatRequest(record))]);
    expect(twins.map(textOf).sort()).toEqual(['first', 'second']);
    openai.reply({ toolCalls: [{ id: 'call_1', name: 'add', arguments: '{"a":1}' }] });
    const tool = await chat(chatRequest(record, { stream: false, tools: [addTool] }));
    expect(tool.at(-1)).toMatchObject({
      type: 'message',
      message: { toolCalls: [{ id: 'call_1', name: 'add' }] },
    });
    systemOne.answer({
      intent: { type: 'choice', choice: 'refund', probabilities: { refund: 0.9, bug: 0.1 }, confidence: 0.8 },
    });
    const decided = await gateway.decide({
      actor: cast.reader,
      workspace: 'main',
      provider: { kind: 'typesafe', resource: 'f/ai/typesafe', model: 'jev-latest' },
      state: 'Refund me',
      questions,
      recording: record,
    });
    expect(openai.chatRequests()).toHaveLength(3);

    recorded = await read(record.id);
    expect(recorded.mode).toBe('record');
    expect(recorded.calls.map((call) => [call.operation, call.occurrence])).toEqual([
      ['chat', 0],
      ['chat', 1],
      ['chat', 0],
      ['decide', 0],
    ]);
    expect(recorded.calls[0].digest).toBe(recorded.calls[1].digest);
    expect(recorded.calls[0].request).toEqual({
      messages: [{ content: [{ text: 'Hi', type: 'text' }], role: 'user' }],
      provider: { kind: 'openai', model: 'gpt-4o-mini' },
    });
    expect(recorded.calls[2].request).toMatchObject({ stream: false, tools: [addTool] });
    expect(recorded.calls[2].answer).toEqual(tool);
    expect(recorded.calls[3].answer).toEqual(decided);
  });

  it('replays every answer with no provider call and no credentials (the resource does not exist)', async () => {
    const replay: RecordingRef = { mode: 'replay', id: randomUUID() };
    expect((await upload(replay.id, recorded.calls)).status).toBe(204);
    const before = { chats: openai.chatRequests().length, decisions: systemOne.requests.length };

    const twins = await Promise.all([
      chat(chatRequest(replay, {}, 'f/ai/missing')),
      chat(chatRequest(replay, {}, 'f/ai/missing')),
    ]);
    expect(twins.map(textOf).sort()).toEqual(['first', 'second']);
    // Streamed again as recorded: every event, deltas included.
    expect(twins.map((events) => events.map((event) => event.type))).toEqual([
      (recorded.calls[0].answer as ChatEvent[]).map((event) => event.type),
      (recorded.calls[1].answer as ChatEvent[]).map((event) => event.type),
    ]);
    const tool = await chat(chatRequest(replay, { stream: false, tools: [addTool] }, 'f/ai/missing'));
    expect(tool).toEqual(recorded.calls[2].answer);
    const decided = await gateway.decide({
      actor: cast.reader,
      workspace: 'main',
      provider: { kind: 'typesafe', resource: 'f/ai/missing', model: 'jev-latest' },
      state: 'Refund me',
      questions,
      recording: replay,
    });
    expect(decided).toEqual(recorded.calls[3].answer);
    expect({ chats: openai.chatRequests().length, decisions: systemOne.requests.length }).toEqual(before);
    expect(await read(replay.id)).toMatchObject({ mode: 'replay', mismatch: null, unused: 0 });

    // One more than was recorded: nothing left to answer it.
    const extra = await chat(chatRequest(replay, {}, 'f/ai/missing'));
    expect(extra.at(-1)).toMatchObject({
      type: 'error',
      error: {
        class: 'bad_request_user',
        message: expect.stringContaining('every recorded chat was used') as unknown,
      },
    });
  });

  it('fails the first request that differs, naming the field, expected against got; keeps that first one', async () => {
    const replay: RecordingRef = { mode: 'replay', id: randomUUID() };
    await upload(replay.id, recorded.calls);
    const changed = await chat(
      chatRequest(replay, { messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }] }),
    );
    expect(changed.at(-1)).toEqual({
      type: 'error',
      error: {
        class: 'bad_request_user',
        fault: 'user',
        message:
          'replay: the chat request differs from recorded call 0: messages[0].content[0].text: expected "Hi", got "Hello"',
      },
    });
    const decision = await gateway
      .decide({
        actor: cast.reader,
        workspace: 'main',
        provider: { kind: 'typesafe', resource: 'f/ai/typesafe', model: 'jev-latest' },
        state: 'Refund me, now',
        questions,
        recording: replay,
      })
      .catch((error: unknown) => error);
    expect(decision).toBeInstanceOf(MeshError);
    expect((decision as MeshError).message).toContain('state: expected "Refund me", got "Refund me, now"');
    const stored = await read(replay.id);
    expect(stored.mismatch).toEqual({
      operation: 'chat',
      expectedCall: 0,
      differences: [{ path: 'messages[0].content[0].text', expected: 'Hi', got: 'Hello' }],
      message: expect.stringContaining('differs from recorded call 0') as unknown,
    });
    expect(stored.unused).toBe(4);
  });

  it('a recording is read and written with a token of its workspace only; a replay takes a new id', async () => {
    expect((await fetch(recordingsUrl(record.id))).status).toBe(401);
    expect((await fetch(recordingsUrl(record.id), { headers: bearer('fm_no_such_token') })).status).toBe(401);
    // main's token is nobody in another workspace, whatever the id.
    expect(
      (await fetch(recordingsUrl(record.id, 'other'), { headers: bearer(cast.reader.token) })).status,
    ).toBe(401);
    expect((await fetch(recordingsUrl(randomUUID()), { headers: bearer(cast.reader.token) })).status).toBe(
      404,
    );
    expect((await upload(record.id, [])).status).toBe(409);
    // A replay of an id never uploaded: the chat fails, no provider is called.
    const before = openai.chatRequests().length;
    const missing = await chat(chatRequest({ mode: 'replay', id: randomUUID() }));
    expect(missing.at(-1)).toMatchObject({ type: 'error' });
    expect(openai.chatRequests()).toHaveLength(before);
  });
});
