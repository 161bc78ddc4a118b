import type { AIProviderKind, ChatEvent, ChatRequestInput } from '@flowmesh/contracts';
import { gatewayChat } from '@flowmesh/gateway-chat';
import {
  openAIContextExceededReply,
  startFakeOpenAI,
  type FakeOpenAI,
  type FakeOpenAIOptions,
  type OpenAIFakeUsageStyle,
  type RecordedRequest,
} from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayCast, type GatewayCast } from './support/gateway-cast.js';

/**
 * Each OpenAI-compatible vendor end to end: a chat over NATS (`gatewayChat`) through a real
 * registry-held provider resource to a fake of that vendor, asserted on the normalized events and
 * on the exact request the fake received.
 */

interface Vendor {
  readonly kind: AIProviderKind;
  readonly model: string;
  readonly key?: string;
  readonly fake: FakeOpenAIOptions;
  readonly resource: (url: string) => Record<string, unknown>;
  readonly path: string;
  readonly query: Record<string, string>;
  readonly auth: (key: string) => Record<string, string>;
  readonly maxTokensField: 'max_tokens' | 'max_completion_tokens';
  readonly streamOptions: boolean;
  readonly jsonSchema: 'native' | 'json_object';
  /** Where this vendor's streams carry usage. */
  readonly usageStyle: OpenAIFakeUsageStyle;
}

const VENDORS: Vendor[] = [
  {
    kind: 'openai',
    model: 'gpt-4o-mini',
    key: 'sk-openai-test-key',
    fake: {},
    resource: (url) => ({ base_url: `${url}/v1` }),
    path: '/v1/chat/completions',
    query: {},
    auth: (key) => ({ authorization: `Bearer ${key}` }),
    maxTokensField: 'max_completion_tokens',
    streamOptions: true,
    jsonSchema: 'native',
    usageStyle: 'usage_chunk',
  },
  {
    kind: 'azure_openai',
    model: 'prod-gpt4o',
    key: 'azure-key-0123456789',
    fake: {},
    resource: (url) => ({ base_url: `${url}/openai`, api_version: '2024-10-21' }),
    path: '/openai/deployments/prod-gpt4o/chat/completions',
    query: { 'api-version': '2024-10-21' },
    auth: (key) => ({ 'api-key': key }),
    maxTokensField: 'max_completion_tokens',
    streamOptions: true,
    jsonSchema: 'native',
    usageStyle: 'usage_chunk',
  },
  {
    kind: 'mistral',
    model: 'mistral-small-latest',
    key: 'mistral-key-0123456789',
    fake: { rejectFields: ['stream_options'], toolCallId: /^[a-zA-Z0-9]{9}$/ },
    resource: (url) => ({ base_url: `${url}/v1` }),
    path: '/v1/chat/completions',
    query: {},
    auth: (key) => ({ authorization: `Bearer ${key}` }),
    maxTokensField: 'max_tokens',
    streamOptions: false,
    jsonSchema: 'native',
    usageStyle: 'last_choice_chunk',
  },
  {
    kind: 'deepseek',
    model: 'deepseek-chat',
    key: 'deepseek-key-0123456789',
    fake: {},
    resource: (url) => ({ base_url: url }),
    path: '/chat/completions',
    query: {},
    auth: (key) => ({ authorization: `Bearer ${key}` }),
    maxTokensField: 'max_tokens',
    streamOptions: true,
    jsonSchema: 'json_object',
    usageStyle: 'last_choice_chunk',
  },
  {
    kind: 'azure_foundry',
    model: 'DeepSeek-R1',
    key: 'foundry-key-0123456789',
    fake: {},
    resource: (url) => ({ base_url: `${url}/models` }),
    path: '/models/chat/completions',
    query: { 'api-version': '2024-05-01-preview' },
    auth: (key) => ({ 'api-key': key }),
    maxTokensField: 'max_tokens',
    streamOptions: true,
    jsonSchema: 'native',
    usageStyle: 'usage_chunk',
  },
  {
    kind: 'groq',
    model: 'llama-3.3-70b-versatile',
    key: 'gsk-groq-0123456789',
    fake: {},
    resource: (url) => ({ base_url: `${url}/openai/v1` }),
    path: '/openai/v1/chat/completions',
    query: {},
    auth: (key) => ({ authorization: `Bearer ${key}` }),
    maxTokensField: 'max_completion_tokens',
    streamOptions: true,
    jsonSchema: 'native',
    usageStyle: 'x_groq',
  },
  {
    kind: 'openrouter',
    model: 'openai/gpt-4o-mini',
    key: 'sk-or-0123456789',
    fake: {},
    resource: (url) => ({ base_url: `${url}/api/v1` }),
    path: '/api/v1/chat/completions',
    query: {},
    auth: (key) => ({ authorization: `Bearer ${key}`, 'x-title': 'flowmesh' }),
    maxTokensField: 'max_tokens',
    streamOptions: true,
    jsonSchema: 'native',
    usageStyle: 'usage_chunk',
  },
  {
    kind: 'togetherai',
    model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo',
    key: 'together-0123456789',
    fake: {},
    resource: (url) => ({ base_url: `${url}/v1` }),
    path: '/v1/chat/completions',
    query: {},
    auth: (key) => ({ authorization: `Bearer ${key}` }),
    maxTokensField: 'max_tokens',
    streamOptions: true,
    jsonSchema: 'native',
    usageStyle: 'last_choice_chunk',
  },
  {
    kind: 'customai',
    model: 'qwen2.5-7b-instruct',
    fake: {},
    resource: (url) => ({ base_url: `${url}/v1` }),
    path: '/v1/chat/completions',
    query: {},
    auth: () => ({}),
    maxTokensField: 'max_tokens',
    streamOptions: true,
    jsonSchema: 'native',
    usageStyle: 'usage_chunk',
  },
];

const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'Get the weather of a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const PNG_1x1 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

let cast: GatewayCast;
const fakes = new Map<AIProviderKind, FakeOpenAI>();

beforeAll(async () => {
  cast = await startGatewayCast();
  for (const vendor of VENDORS) {
    const fake = await startFakeOpenAI({ ...vendor.fake, ...(vendor.key ? { apiKey: vendor.key } : {}) });
    fakes.set(vendor.kind, fake);
    await cast.providerResource(`f/ai/${vendor.kind}`, vendor.kind, vendor.resource(fake.url), vendor.key);
  }
});

afterAll(async () => {
  await Promise.all([...fakes.values()].map((fake) => fake.close()));
  await cast?.stop();
});

async function chat(vendor: Vendor, request: Partial<ChatRequestInput>): Promise<ChatEvent[]> {
  const stream = await gatewayChat(cast.registry.conn, {
    actor: cast.reader,
    workspace: 'main',
    provider: { kind: vendor.kind, resource: `f/ai/${vendor.kind}`, model: vendor.model },
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello?' }] }],
    ...request,
  });
  const events: ChatEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

function final(events: ChatEvent[]) {
  const last = events.at(-1);
  if (last?.type !== 'message') throw new Error(`expected a final message, got ${JSON.stringify(last)}`);
  return last;
}

function body(request: RecordedRequest): Record<string, unknown> {
  return request.body as Record<string, unknown>;
}

describe.each(VENDORS)('$kind through the gateway', (vendor) => {
  const fake = () => fakes.get(vendor.kind)!;

  function expectWire(request: RecordedRequest): void {
    expect(request.method).toBe('POST');
    expect(request.path).toBe(vendor.path);
    expect(request.query).toEqual(vendor.query);
    expect(request.headers).toMatchObject({
      'content-type': 'application/json',
      ...vendor.auth(vendor.key ?? ''),
    });
    if (!vendor.key) expect(request.headers.authorization).toBeUndefined();
    expect(body(request).model).toBe(vendor.model);
  }

  it('answers a plain (non-streamed) call', async () => {
    fake().reply({ text: 'Hello there.', usage: { prompt_tokens: 12, completion_tokens: 3 } });
    const events = await chat(vendor, {
      system: 'Be brief.',
      stream: false,
      maxOutputTokens: 64,
      temperature: 0.3,
    });
    expect(events.map((event) => event.type)).toEqual([
      'started',
      'text_delta',
      'usage',
      'finish',
      'message',
    ]);
    expect(final(events)).toMatchObject({
      message: { role: 'assistant', content: [{ type: 'text', text: 'Hello there.' }] },
      finishReason: 'stop',
      provider: vendor.kind,
      usage: { inputTokens: 12, outputTokens: 3 },
    });
    const request = fake().lastRequest();
    expectWire(request);
    expect(body(request)).toEqual({
      model: vendor.model,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello?' },
      ],
      temperature: 0.3,
      [vendor.maxTokensField]: 64,
    });
  });

  it('streams an answer as ordered text deltas', async () => {
    fake().reply({ text: 'The quick brown fox jumps.', deltaSize: 5, usageStyle: vendor.usageStyle });
    const events = await chat(vendor, {});
    const deltas = events.flatMap((event) => (event.type === 'text_delta' ? [event.text] : []));
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join('')).toBe('The quick brown fox jumps.');
    expect(events[0]).toEqual({
      type: 'started',
      provider: vendor.kind,
      resource: `f/ai/${vendor.kind}`,
      model: vendor.model,
      fallbackIndex: 0,
    });
    expect(final(events).message.content).toEqual([{ type: 'text', text: 'The quick brown fox jumps.' }]);
    const request = fake().lastRequest();
    expectWire(request);
    expect(request.headers.accept).toBe('text/event-stream');
    expect(body(request).stream).toBe(true);
    expect(body(request).stream_options).toEqual(vendor.streamOptions ? { include_usage: true } : undefined);
  });

  it('streams parallel tool calls in order with their ids, then takes the results back', async () => {
    fake().reply({
      text: 'Checking both.',
      toolCalls: [
        { id: 'call_paris1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { id: 'call_tokyo2', name: 'get_weather', arguments: '{"city":"Tokyo"}' },
      ],
      deltaSize: 4,
      usageStyle: vendor.usageStyle,
    });
    const events = await chat(vendor, { tools: [WEATHER_TOOL], toolChoice: 'auto', parallelToolCalls: true });
    expect(events.filter((event) => event.type === 'tool_call_started')).toEqual([
      { type: 'tool_call_started', index: 0, id: 'call_paris1', name: 'get_weather' },
      { type: 'tool_call_started', index: 1, id: 'call_tokyo2', name: 'get_weather' },
    ]);
    expect(events.filter((event) => event.type === 'tool_call_finished')).toEqual([
      {
        type: 'tool_call_finished',
        index: 0,
        id: 'call_paris1',
        name: 'get_weather',
        arguments: '{"city":"Paris"}',
      },
      {
        type: 'tool_call_finished',
        index: 1,
        id: 'call_tokyo2',
        name: 'get_weather',
        arguments: '{"city":"Tokyo"}',
      },
    ]);
    const answer = final(events);
    expect(answer.finishReason).toBe('tool_calls');
    expect(answer.message.toolCalls?.map((call) => call.id)).toEqual(['call_paris1', 'call_tokyo2']);
    const first = body(fake().lastRequest());
    expect(first.tools).toEqual([{ type: 'function', function: WEATHER_TOOL }]);
    expect(first.tool_choice).toBe('auto');
    expect(first.parallel_tool_calls).toBe(true);

    // The second turn replays the calls and answers them; the fake checks every result answers a call.
    fake().reply({ text: 'Rainy in Paris, sunny in Tokyo.' });
    const second = await chat(vendor, {
      tools: [WEATHER_TOOL],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Hello?' }] },
        answer.message,
        {
          role: 'tool',
          toolCallId: 'call_paris1',
          name: 'get_weather',
          content: [{ type: 'text', text: 'rainy' }],
        },
        {
          role: 'tool',
          toolCallId: 'call_tokyo2',
          name: 'get_weather',
          content: [{ type: 'text', text: 'sunny' }],
        },
      ],
    });
    expect(final(second).message.content).toEqual([
      { type: 'text', text: 'Rainy in Paris, sunny in Tokyo.' },
    ]);
    const replayed = body(fake().lastRequest()).messages as Array<Record<string, unknown>>;
    const callIds = (replayed[1]?.tool_calls as Array<{ id: string }>).map((call) => call.id);
    expect(replayed.slice(2).map((message) => message.tool_call_id)).toEqual(callIds);
    if (vendor.kind === 'mistral') for (const id of callIds) expect(id).toMatch(/^[a-zA-Z0-9]{9}$/);
    else expect(callIds).toEqual(['call_paris1', 'call_tokyo2']);
  });

  it('asks for structured output the way the vendor supports it', async () => {
    const schema = {
      type: 'object',
      properties: { city: { type: 'string' }, celsius: { type: 'number' } },
      required: ['city', 'celsius'],
    };
    fake().reply({ text: '{"city":"Paris","celsius":12}' });
    const events = await chat(vendor, { responseFormat: { type: 'json_schema', name: 'weather', schema } });
    const text = final(events)
      .message.content.map((part) => part.text)
      .join('');
    expect(JSON.parse(text)).toEqual({ city: 'Paris', celsius: 12 });
    const sent = body(fake().lastRequest());
    if (vendor.jsonSchema === 'native') {
      expect(sent.response_format).toEqual({
        type: 'json_schema',
        json_schema: { name: 'weather', schema, strict: true },
      });
    } else {
      expect(sent.response_format).toEqual({ type: 'json_object' });
      expect((sent.messages as Array<{ role: string; content: string }>)[0]).toEqual({
        role: 'system',
        content: `Answer with one JSON object only, valid against this JSON Schema:\n${JSON.stringify(schema)}`,
      });
    }
  });

  it('sends an inline image as a data URL', async () => {
    fake().reply({ text: 'A red pixel.' });
    await chat(vendor, {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'inline_data', mediaType: 'image/png', data: PNG_1x1 },
          ],
        },
      ],
    });
    expect(body(fake().lastRequest()).messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_1x1}` } },
        ],
      },
    ]);
  });

  it('normalizes usage: cached tokens inside input, reasoning inside output', async () => {
    const cached = vendor.kind === 'deepseek' ? { prompt_cache_hit_tokens: 40 } : { cached_tokens: 40 };
    fake().reply({
      text: 'ok',
      usage: { prompt_tokens: 100, completion_tokens: 30, reasoning_tokens: 20, ...cached },
      usageStyle: vendor.usageStyle,
    });
    const events = await chat(vendor, {});
    const usage = {
      inputTokens: 100,
      outputTokens: 30,
      cacheReadTokens: 40,
      cacheWriteTokens: 0,
      reasoningTokens: 20,
    };
    expect(events.filter((event) => event.type === 'usage')).toEqual([{ type: 'usage', usage }]);
    expect(final(events).usage).toEqual(usage);
  });

  it('reports a context-window overflow as its own class, without retrying it', async () => {
    const before = fake().chatRequests().length;
    fake().reply(
      vendor.kind === 'mistral'
        ? {
            error: {
              status: 400,
              message:
                'Prompt contains 200000 tokens, too large for model with 131072 maximum context length',
              type: 'invalid_request_message_error',
            },
          }
        : openAIContextExceededReply(),
    );
    const events = await chat(vendor, {});
    expect(events.map((event) => event.type)).toEqual(['error']);
    expect(events[0]).toMatchObject({
      type: 'error',
      error: { class: 'context_window_exceeded', status: 400, provider: vendor.kind, model: vendor.model },
    });
    expect(fake().chatRequests().length).toBe(before + 1);
  });
});
