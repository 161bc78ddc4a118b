import {
  ChatStreamEnvelopeSchema,
  createGatewayClient,
  MeshError,
  tokenStreamSubject,
  type ChatEvent,
  type ChatRequestInput,
  type ChatStreamEnvelope,
  type GatewayClient,
} from '@flowmesh/contracts';
import { gatewayChat } from '@flowmesh/gateway-chat';
import {
  expectEventually,
  fakeEmbedding,
  openAIContextExceededReply,
  openAIServerErrorReply,
  startFakeOpenAI,
  type FakeOpenAI,
} from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOL_NAME_PATTERN } from '../src/chat/tool-name.guard.js';
import { startGatewayCast, type GatewayCast } from './support/gateway-cast.js';

/**
 * The gateway's NATS API end to end: streaming with sequence numbers, cancel reaching the
 * upstream request, retries honouring retry-after, fallbacks, access checks, the tool-name
 * guard, embeddings, model lists and context windows.
 */

let cast: GatewayCast;
let gateway: GatewayClient;
let primary: FakeOpenAI;
let backup: FakeOpenAI;
let third: FakeOpenAI;

const KEY = 'sk-primary-0123456789';

beforeAll(async () => {
  cast = await startGatewayCast({
    gatewayEnv: { FLOWMESH_GATEWAY_RETRY_BASE_MS: '5', FLOWMESH_GATEWAY_MAX_ATTEMPTS: '3' },
  });
  gateway = createGatewayClient(cast.registry.client);
  [primary, backup, third] = await Promise.all([
    startFakeOpenAI({ apiKey: KEY }),
    startFakeOpenAI(),
    startFakeOpenAI(),
  ]);
  await cast.providerResource('f/ai/primary', 'openai', { base_url: `${primary.url}/v1` }, KEY);
  await cast.providerResource('f/ai/backup', 'customai', { base_url: `${backup.url}/v1` });
  await cast.providerResource('f/ai/third', 'customai', { base_url: `${third.url}/v1` });
});

afterAll(async () => {
  await Promise.all([primary, backup, third].map((fake) => fake?.close()));
  await cast?.stop();
});

function request(extra: Partial<ChatRequestInput> = {}): ChatRequestInput {
  return {
    actor: cast.reader,
    workspace: 'main',
    provider: { kind: 'openai', resource: 'f/ai/primary', model: 'gpt-4o-mini' },
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
    ...extra,
  };
}

async function collect(extra: Partial<ChatRequestInput> = {}): Promise<ChatEvent[]> {
  const events: ChatEvent[] = [];
  for await (const event of await gatewayChat(cast.registry.conn, request(extra))) events.push(event);
  return events;
}

describe('chat over NATS', () => {
  it('publishes every event on the token stream with gap-free sequence numbers, ending with the message', async () => {
    primary.reply({ text: 'one two three four', deltaSize: 4 });
    const streamId = `test-${Date.now()}-seq`;
    const conn = cast.registry.conn;
    const envelopes: ChatStreamEnvelope[] = [];
    const subscription = conn.nc.subscribe(conn.space.subject(tokenStreamSubject(streamId)), {
      callback: (_error, message) => envelopes.push(ChatStreamEnvelopeSchema.parse(message.json())),
    });
    await conn.nc.flush();
    const reply = await gateway.startChat({ ...request(), streamId });
    expect(reply).toEqual({ streamId, subject: tokenStreamSubject(streamId) });
    await expectEventually(() => expect(envelopes.at(-1)?.event.type).toBe('message'));
    subscription.unsubscribe();
    expect(envelopes.map((envelope) => envelope.seq)).toEqual(envelopes.map((_, index) => index));
    expect(envelopes.every((envelope) => envelope.streamId === streamId)).toBe(true);
    expect(envelopes.map((envelope) => envelope.event.type)).toEqual([
      'started',
      'text_delta',
      'text_delta',
      'text_delta',
      'text_delta',
      'text_delta',
      'usage',
      'finish',
      'message',
    ]);
  });

  it('fills a silent stream with keepalives, which gatewayChat absorbs', async () => {
    primary.reply({ text: 'thought about it', delayMs: 4_500 });
    const streamId = `test-${Date.now()}-keepalive`;
    const conn = cast.registry.conn;
    const types: string[] = [];
    const subscription = conn.nc.subscribe(conn.space.subject(tokenStreamSubject(streamId)), {
      callback: (_error, message) => types.push(ChatStreamEnvelopeSchema.parse(message.json()).event.type),
    });
    await conn.nc.flush();
    await gateway.startChat({ ...request(), streamId });
    await expectEventually(() => expect(types.at(-1)).toBe('message'), { timeoutMs: 20_000 });
    subscription.unsubscribe();
    // 4.5 s before the first byte: at least one keepalive (one every 2 s of silence).
    expect(types.filter((type) => type === 'keepalive').length).toBeGreaterThanOrEqual(1);
    expect(types.at(0)).toBe('keepalive');

    primary.reply({ text: 'again', delayMs: 4_500 });
    const events = await collect();
    expect(events.map((event) => event.type)).not.toContain('keepalive');
    expect(events.at(-1)).toMatchObject({ type: 'message' });
  });

  it("ends a stream silent past gatewayChat's patience as interrupted, not as the provider's failure", async () => {
    primary.reply({ text: 'too slow', delayMs: 1_500 });
    const chat = await gatewayChat(cast.registry.conn, request(), { idleTimeoutMs: 300 });
    expect(await chat.result).toMatchObject({
      type: 'error',
      error: { class: 'provider_outage', fault: 'internal', interrupted: true },
    });
  });

  it("sends the call's idempotency key to the provider as Idempotency-Key", async () => {
    primary.reply({ text: 'once' });
    const events = await collect({ idempotencyKey: 'job-1:abc.0' });
    expect(events.at(-1)).toMatchObject({ type: 'message' });
    expect(primary.lastRequest().headers['idempotency-key']).toBe('job-1:abc.0');
    primary.reply({ text: 'no key' });
    await collect();
    expect(primary.lastRequest().headers['idempotency-key']).toBeUndefined();
  });

  it('cancelling a chat aborts the upstream request and ends the stream with cancelled', async () => {
    primary.reply({ silentStream: true });
    const chat = await gatewayChat(cast.registry.conn, request());
    const iterator = chat[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toMatchObject({ type: 'started' });
    const upstream = primary.lastRequest();
    expect(upstream.aborted).toBe(false);
    await chat.abort();
    expect(await chat.result).toMatchObject({ type: 'error', error: { class: 'cancelled' } });
    await expectEventually(() => expect(upstream.aborted).toBe(true));
  });

  it('an AbortSignal cancels too, and a cancel for an unknown stream is harmless', async () => {
    primary.reply({ silentStream: true });
    const before = primary.chatRequests().length;
    const controller = new AbortController();
    const chat = await gatewayChat(cast.registry.conn, request(), { signal: controller.signal });
    // This chat's own request (not the previous test's): the silent reply must not be left queued.
    await expectEventually(() => expect(primary.chatRequests().length).toBe(before + 1));
    const upstream = primary.lastRequest();
    controller.abort();
    expect(await chat.result).toMatchObject({ type: 'error', error: { class: 'cancelled' } });
    await expectEventually(() => expect(upstream.aborted).toBe(true));
    expect(await gateway.cancelChat({ streamId: 'no-such-stream-0001' })).toEqual({ accepted: true });
  });

  it('retries a rate limit after the provider-given wait, then answers', async () => {
    const before = primary.chatRequests().length;
    primary.reply(
      {
        error: {
          status: 429,
          message: 'Rate limit reached',
          type: 'requests',
          code: 'rate_limit_exceeded',
          headers: { 'retry-after-ms': '400' },
        },
      },
      { text: 'after the wait' },
    );
    const started = performance.now();
    const events = await collect();
    const elapsed = performance.now() - started;
    expect(events.at(-1)).toMatchObject({
      type: 'message',
      message: { content: [{ type: 'text', text: 'after the wait' }] },
    });
    expect(primary.chatRequests().length).toBe(before + 2);
    expect(elapsed).toBeGreaterThanOrEqual(400);
  });

  it('gives up after the bounded attempts with the rate-limit class and its retry-after', async () => {
    const before = primary.chatRequests().length;
    const limited = {
      error: {
        status: 429,
        message: 'slow down',
        type: 'requests',
        code: 'rate_limit_exceeded',
        headers: { 'retry-after-ms': '20' },
      },
    };
    primary.reply(limited, limited, limited);
    const events = await collect();
    expect(events).toEqual([
      {
        type: 'error',
        error: expect.objectContaining({
          class: 'rate_limited',
          retryAfterMs: 20,
          status: 429,
          provider: 'openai',
        }) as unknown,
      },
    ]);
    expect(primary.chatRequests().length).toBe(before + 3);
  });

  it('falls back to the next provider when the first is down, after its retries', async () => {
    const before = primary.chatRequests().length;
    primary.reply(openAIServerErrorReply(503), openAIServerErrorReply(503), openAIServerErrorReply(502));
    backup.reply({ text: 'from the backup' });
    const events = await collect({
      fallbacks: [{ kind: 'customai', resource: 'f/ai/backup', model: 'llama-3.1-8b' }],
    });
    expect(events[0]).toEqual({
      type: 'started',
      provider: 'customai',
      resource: 'f/ai/backup',
      model: 'llama-3.1-8b',
      fallbackIndex: 1,
    });
    expect(events.at(-1)).toMatchObject({
      type: 'message',
      provider: 'customai',
      message: { content: [{ type: 'text', text: 'from the backup' }] },
    });
    expect(primary.chatRequests().length).toBe(before + 3);
    expect(backup.lastRequest().body).toMatchObject({ model: 'llama-3.1-8b' });
  });

  it('after a context overflow, falls back only to a model with a larger window', async () => {
    const backupBefore = backup.chatRequests().length;
    primary.reply(openAIContextExceededReply());
    third.reply({ text: 'fits in a million' });
    const events = await collect({
      provider: { kind: 'openai', resource: 'f/ai/primary', model: 'gpt-4o' },
      fallbacks: [
        { kind: 'customai', resource: 'f/ai/backup', model: 'gpt-4' },
        { kind: 'customai', resource: 'f/ai/third', model: 'gpt-4.1' },
      ],
    });
    expect(events[0]).toMatchObject({ type: 'started', resource: 'f/ai/third', fallbackIndex: 2 });
    expect(events.at(-1)).toMatchObject({
      type: 'message',
      message: { content: [{ type: 'text', text: 'fits in a million' }] },
    });
    expect(backup.chatRequests().length).toBe(backupBefore);
  });

  it('never retries or falls back on a request the provider calls malformed', async () => {
    const before = primary.chatRequests().length;
    const backupBefore = backup.chatRequests().length;
    primary.reply({
      error: { status: 400, message: "Invalid value for 'temperature'", type: 'invalid_request_error' },
    });
    const events = await collect({ fallbacks: [{ kind: 'customai', resource: 'f/ai/backup', model: 'x' }] });
    expect(events).toMatchObject([{ type: 'error', error: { class: 'bad_request_internal', status: 400 } }]);
    expect(primary.chatRequests().length).toBe(before + 1);
    expect(backup.chatRequests().length).toBe(backupBefore);
  });

  it('does not retry a stream that failed after it started: the events so far, then the error', async () => {
    const before = primary.chatRequests().length;
    primary.reply({
      streamThenFail: {
        turn: { text: 'partial answer here' },
        afterChunks: 3,
        error: { message: 'upstream broke' },
      },
    });
    const events = await collect();
    expect(events[0]?.type).toBe('started');
    expect(events.some((event) => event.type === 'text_delta')).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { class: 'provider_outage' } });
    expect(primary.chatRequests().length).toBe(before + 1);
  });

  it('refuses a caller who may not read the provider resource, before anything is sent', async () => {
    const before = primary.requests.length;
    const refusal = await gatewayChat(cast.registry.conn, { ...request(), actor: cast.stranger }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(MeshError);
    expect(['NOT_FOUND', 'PERMISSION_DENIED']).toContain((refusal as MeshError).code);
    expect(primary.requests.length).toBe(before);
  });

  it('refuses an attachment by reference in the reply (the caller must inline it)', async () => {
    const refusal = await gatewayChat(cast.registry.conn, {
      ...request(),
      messages: [
        {
          role: 'user',
          content: [{ type: 'attachment', object: { key: 'img/a.png' }, mediaType: 'image/png' }],
        },
      ],
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringContaining('inline_data') as unknown,
    });
  });

  it('sends tool names every provider accepts, and answers with the caller’s own names', async () => {
    const tools = [
      { name: 'handbook.pdf', description: 'Search the handbook', parameters: { type: 'object' } },
      { name: '検索', description: 'Search', parameters: { type: 'object' } },
      { name: 'get_time', parameters: { type: 'object' } },
    ];
    primary.reply({ text: '' });
    await collect({ tools });
    const sent = (primary.lastRequest().body as { tools: Array<{ function: { name: string } }> }).tools.map(
      (tool) => tool.function.name,
    );
    for (const name of sent) expect(name).toMatch(TOOL_NAME_PATTERN);
    expect(sent[2]).toBe('get_time');
    expect(new Set(sent).size).toBe(3);

    primary.reply({
      toolCalls: [
        { id: 'call_1', name: sent[0], arguments: '{"q":"leave"}' },
        { id: 'call_2', name: sent[1], arguments: '{}' },
      ],
    });
    const events = await collect({ tools });
    expect(
      events
        .filter((event) => event.type === 'tool_call_started')
        .map((event) => event.type === 'tool_call_started' && event.name),
    ).toEqual(['handbook.pdf', '検索']);
    const answer = events.at(-1);
    expect(answer).toMatchObject({
      type: 'message',
      message: { toolCalls: [{ name: 'handbook.pdf' }, { name: '検索' }] },
    });

    // Replaying that history sends the same provider names again.
    primary.reply({ text: 'done' });
    if (answer?.type !== 'message') throw new Error('expected a message');
    await collect({
      tools,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
        answer.message,
        {
          role: 'tool',
          toolCallId: 'call_1',
          name: 'handbook.pdf',
          content: [{ type: 'text', text: '25 days' }],
        },
        { role: 'tool', toolCallId: 'call_2', name: '検索', content: [{ type: 'text', text: 'nothing' }] },
      ],
    });
    const replayed = (
      primary.lastRequest().body as {
        messages: Array<{ tool_calls?: Array<{ function: { name: string } }> }>;
      }
    ).messages[1];
    expect(replayed?.tool_calls?.map((call) => call.function.name)).toEqual([sent[0], sent[1]]);
  });
});

describe('embeddings, model lists and context windows over NATS', () => {
  it('embeds through the provider, vectors in input order', async () => {
    const reply = await gateway.embed({
      actor: cast.reader,
      workspace: 'main',
      provider: { kind: 'openai', resource: 'f/ai/primary', model: 'text-embedding-3-small' },
      input: ['alpha', 'beta'],
      dimensions: 4,
    });
    expect(reply).toEqual({
      embeddings: [fakeEmbedding('alpha', 4), fakeEmbedding('beta', 4)],
      model: 'text-embedding-3-small',
      usage: { inputTokens: 3 },
    });
    expect(primary.lastRequest()).toMatchObject({
      path: '/v1/embeddings',
      headers: { authorization: `Bearer ${KEY}` },
      body: {
        model: 'text-embedding-3-small',
        input: ['alpha', 'beta'],
        encoding_format: 'float',
        dimensions: 4,
      },
    });
  });

  it('lists the provider’s models with the table’s windows', async () => {
    const reply = await gateway.listModels({
      actor: cast.reader,
      workspace: 'main',
      provider: { kind: 'openai', resource: '$res:f/ai/primary' },
    });
    expect(reply.models).toEqual([
      { id: 'gpt-4o-mini', ownedBy: 'system', contextWindow: 128_000 },
      { id: 'gpt-4o', ownedBy: 'system', contextWindow: 128_000 },
      { id: 'text-embedding-3-small', ownedBy: 'system' },
    ]);
    expect(primary.lastRequest()).toMatchObject({ method: 'GET', path: '/v1/models' });
  });

  it('answers context windows from the table, 128000 for an unknown model, and honours an override', async () => {
    expect(await gateway.contextWindow({ model: 'gpt-4.1-mini' })).toEqual({
      model: 'gpt-4.1-mini',
      contextWindow: 1_047_576,
      source: 'table',
    });
    expect(await gateway.contextWindow({ model: 'my-finetune' })).toEqual({
      model: 'my-finetune',
      contextWindow: 128_000,
      source: 'default',
    });
    expect(await gateway.contextWindow({ model: 'gpt-4o', override: 32_000 })).toEqual({
      model: 'gpt-4o',
      contextWindow: 32_000,
      source: 'override',
    });
  });

  it('a provider failure on a request subject is a MeshError carrying the class, never the key', async () => {
    await cast.providerResource(
      'f/ai/wrong_key',
      'openai',
      { base_url: `${primary.url}/v1` },
      'sk-wrong-key-9876543210',
    );
    const error = await gateway
      .embed({
        actor: cast.reader,
        workspace: 'main',
        provider: { kind: 'openai', resource: 'f/ai/wrong_key', model: 'text-embedding-3-small' },
        input: ['a'],
      })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(error).toBeInstanceOf(MeshError);
    expect(error).toMatchObject({
      code: 'PERMISSION_DENIED',
      details: { class: 'auth_failed', status: 401, provider: 'openai' },
    });
    expect(JSON.stringify((error as MeshError).toEnvelope())).not.toContain('wrong-key');
  });
});
