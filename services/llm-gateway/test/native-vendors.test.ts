import type { ChatEvent, ChatRequestInput } from '@flowmesh/contracts';
import { gatewayChat } from '@flowmesh/gateway-chat';
import {
  anthropicContextExceededReply,
  bedrockContextExceededReply,
  geminiContextExceededReply,
  startFakeAnthropic,
  startFakeBedrock,
  startFakeGemini,
  type FakeAnthropic,
  type FakeBedrock,
  type FakeGemini,
  type RecordedRequest,
  waitFor,
} from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bedrockResources, startGatewayCast, type GatewayCast } from './support/gateway-cast.js';

/**
 * Anthropic (direct and on Vertex), Google AI and Bedrock end to end: a chat over NATS
 * (`gatewayChat`) through a registry-held provider resource to the vendor's wire-faithful fake,
 * asserted on the normalized events and on the exact request the fake received.
 */

const ANTHROPIC_KEY = 'sk-ant-native-0123456789abcdef';
const VERTEX_TOKEN = 'ya29.native-vertex-token';
const GEMINI_KEY = 'AIzaNative0123456789abcdefghijklmn';
const BEDROCK_KEY = 'bedrock-native-api-key-0123456789';
const AWS_KEY_ID = 'AKIANATIVETEST0001';
const CLAUDE = 'claude-sonnet-4-5';
const GEMINI = 'gemini-2.5-flash';
const BEDROCK_MODEL = 'anthropic.claude-3-5-sonnet-20240620-v1:0';
const PNG_1x1 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'Get the weather of a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const WEATHER_SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' }, celsius: { type: 'number' } },
  required: ['city', 'celsius'],
};
const hello = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'Weather in Paris?' }] }];

let cast: GatewayCast;
let anthropic: FakeAnthropic;
let gemini: FakeGemini;
let bedrock: FakeBedrock;

beforeAll(async () => {
  [cast, anthropic, gemini, bedrock] = await Promise.all([
    startGatewayCast({
      gatewayEnv: {
        FLOWMESH_GATEWAY_EXTRA_HEADERS: 'X-Team: platform',
        FLOWMESH_GATEWAY_SSE_KEEPALIVE_MS: '60',
      },
    }),
    startFakeAnthropic({ apiKey: ANTHROPIC_KEY, vertexAccessToken: VERTEX_TOKEN }),
    startFakeGemini({ apiKey: GEMINI_KEY, requireThoughtSignatures: true }),
    startFakeBedrock({ accessKeyId: AWS_KEY_ID, region: 'eu-west-1', bearerToken: BEDROCK_KEY }),
  ]);
  await cast.providerResource('f/ai/anthropic', 'anthropic', { base_url: anthropic.url }, ANTHROPIC_KEY);
  await cast.providerResource(
    'f/ai/anthropic_vertex',
    'anthropic',
    {
      platform: 'google_vertex_ai',
      region: 'us-east5',
      base_url: `${anthropic.url}/v1/projects/p1/locations/us-east5`,
      enable_1m_context: true,
    },
    VERTEX_TOKEN,
  );
  await cast.providerResource(
    'f/ai/googleai',
    'googleai',
    { base_url: `${gemini.url}/v1beta`, custom_headers: { 'x-goog-user-project': 'billing-1' } },
    GEMINI_KEY,
  );
  await bedrockResources(cast, bedrock.url, {
    bearerToken: BEDROCK_KEY,
    accessKeyId: AWS_KEY_ID,
    secretAccessKey: 'native-secret-access-key',
  });
});

afterAll(async () => {
  await Promise.all([anthropic?.close(), gemini?.close(), bedrock?.close()]);
  await cast?.stop();
});

async function chat(
  provider: ChatRequestInput['provider'],
  request: Partial<ChatRequestInput>,
): Promise<ChatEvent[]> {
  const stream = await gatewayChat(cast.registry.conn, {
    actor: cast.reader,
    workspace: 'main',
    provider,
    messages: hello,
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

const body = (request: RecordedRequest) => request.body as Record<string, unknown>;
const kinds = (events: ChatEvent[], type: ChatEvent['type']) => events.filter((event) => event.type === type);

describe('anthropic through the gateway', () => {
  const direct = { kind: 'anthropic' as const, resource: 'f/ai/anthropic', model: CLAUDE };

  it('answers a plain call: system top-level, sampling kept under the pinned API version', async () => {
    anthropic.reply({
      content: [{ type: 'text', text: 'Sunny.' }],
      usage: { input_tokens: 12, output_tokens: 2 },
    });
    const events = await chat(direct, {
      system: 'Be brief.',
      stream: false,
      temperature: 0.3,
      maxOutputTokens: 64,
    });
    expect(events.map((event) => event.type)).toEqual([
      'started',
      'text_delta',
      'usage',
      'finish',
      'message',
    ]);
    expect(final(events)).toMatchObject({
      message: { content: [{ type: 'text', text: 'Sunny.' }] },
      finishReason: 'stop',
      provider: 'anthropic',
    });
    const request = anthropic.lastRequest();
    expect(request.path).toBe('/v1/messages');
    // The fake refuses temperature under 2026-10-21, as the API does: the gateway pins 2023-06-01.
    expect(request.headers).toMatchObject({
      'x-api-key': ANTHROPIC_KEY,
      'anthropic-version': '2023-06-01',
      'x-team': 'platform',
    });
    expect(body(request)).toEqual({
      model: CLAUDE,
      max_tokens: 64,
      system: [{ type: 'text', text: 'Be brief.' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] }],
      temperature: 0.3,
    });
  });

  it('streams text deltas, with usage that counts cache reads and writes as input', async () => {
    anthropic.reply({
      content: [{ type: 'text', text: 'The quick brown fox jumps.' }],
      usage: {
        input_tokens: 20,
        output_tokens: 7,
        cache_read_input_tokens: 300,
        cache_creation_input_tokens: 50,
      },
      deltaSize: 5,
    });
    const events = await chat(direct, { system: [{ text: 'Long shared rules.', cache: {} }] });
    expect(kinds(events, 'text_delta').length).toBeGreaterThan(3);
    expect(final(events).message.content).toEqual([{ type: 'text', text: 'The quick brown fox jumps.' }]);
    expect(final(events).usage).toEqual({
      inputTokens: 370,
      outputTokens: 7,
      cacheReadTokens: 300,
      cacheWriteTokens: 50,
      reasoningTokens: 0,
    });
    const request = anthropic.lastRequest();
    expect(request.headers.accept).toBe('text/event-stream');
    expect(body(request)).toMatchObject({
      stream: true,
      system: [{ type: 'text', text: 'Long shared rules.', cache_control: { type: 'ephemeral' } }],
    });
  });

  it('streams parallel tool calls after thinking and text, numbered 0 and 1, with guarded names mapped back', async () => {
    // The caller's tool name has a dot; the provider sees the guarded name and answers with it.
    anthropic.reply((request) => {
      const name = (body(request).tools as Array<{ name: string }>)[0]?.name ?? '';
      return {
        content: [
          { type: 'thinking', thinking: 'Two cities.', signature: 'sig-anthropic-1' },
          { type: 'text', text: 'Checking both.' },
          { type: 'tool_use', id: 'toolu_paris', name, input: { city: 'Paris' } },
          { type: 'tool_use', id: 'toolu_tokyo', name, input: { city: 'Tokyo' } },
        ],
        deltaSize: 4,
      };
    });
    const tools = [{ ...WEATHER_TOOL, name: 'weather.lookup' }];
    const events = await chat(direct, { tools, toolChoice: 'auto', reasoningEffort: 'low' });
    expect(kinds(events, 'tool_call_finished')).toEqual([
      {
        type: 'tool_call_finished',
        index: 0,
        id: 'toolu_paris',
        name: 'weather.lookup',
        arguments: '{"city":"Paris"}',
      },
      {
        type: 'tool_call_finished',
        index: 1,
        id: 'toolu_tokyo',
        name: 'weather.lookup',
        arguments: '{"city":"Tokyo"}',
      },
    ]);
    const answer = final(events);
    expect(answer.finishReason).toBe('tool_calls');
    expect(answer.message.content).toEqual([
      { type: 'reasoning', text: 'Two cities.', signature: 'sig-anthropic-1' },
      { type: 'text', text: 'Checking both.' },
    ]);
    const first = body(anthropic.lastRequest());
    expect(first.tools).toEqual([
      {
        name: 'weather_lookup',
        description: WEATHER_TOOL.description,
        input_schema: WEATHER_TOOL.parameters,
      },
    ]);
    expect(first.tool_choice).toEqual({ type: 'auto' });
    expect(first.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });

    // Reasoning round trip: the fake refuses a thinking tool loop whose assistant turn lost its signed thinking block.
    anthropic.reply({ content: [{ type: 'text', text: 'Rainy and sunny.' }] });
    const second = await chat(direct, {
      tools,
      reasoningEffort: 'low',
      messages: [
        ...hello,
        answer.message,
        {
          role: 'tool',
          toolCallId: 'toolu_paris',
          name: 'weather.lookup',
          content: [{ type: 'text', text: 'rainy' }],
        },
        {
          role: 'tool',
          toolCallId: 'toolu_tokyo',
          name: 'weather.lookup',
          content: [{ type: 'text', text: 'sunny' }],
        },
      ],
    });
    expect(final(second).message.content).toEqual([{ type: 'text', text: 'Rainy and sunny.' }]);
    expect((body(anthropic.lastRequest()).messages as unknown[]).slice(1)).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Two cities.', signature: 'sig-anthropic-1' },
          { type: 'text', text: 'Checking both.' },
          { type: 'tool_use', id: 'toolu_paris', name: 'weather_lookup', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'toolu_tokyo', name: 'weather_lookup', input: { city: 'Tokyo' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_paris', content: [{ type: 'text', text: 'rainy' }] },
          { type: 'tool_result', tool_use_id: 'toolu_tokyo', content: [{ type: 'text', text: 'sunny' }] },
        ],
      },
    ]);
  });

  it('answers structured output through a forced tool, as text', async () => {
    anthropic.reply({
      content: [
        { type: 'tool_use', id: 'toolu_out', name: 'weather', input: { city: 'Paris', celsius: 12 } },
      ],
    });
    const events = await chat(direct, {
      responseFormat: { type: 'json_schema', name: 'weather', schema: WEATHER_SCHEMA },
    });
    const answer = final(events);
    expect(JSON.parse(answer.message.content.map((part) => part.text).join(''))).toEqual({
      city: 'Paris',
      celsius: 12,
    });
    expect(answer.message.toolCalls ?? []).toEqual([]);
    expect(answer.finishReason).toBe('stop');
    const sent = body(anthropic.lastRequest());
    expect(sent.tools).toEqual([
      { name: 'weather', description: expect.any(String) as unknown, input_schema: WEATHER_SCHEMA },
    ]);
    expect(sent.tool_choice).toEqual({ type: 'tool', name: 'weather' });
  });

  it('sends an inline image as a base64 image block', async () => {
    anthropic.reply({ content: [{ type: 'text', text: 'A pixel.' }] });
    await chat(direct, {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'inline_data', mediaType: 'image/png', data: PNG_1x1 },
            { type: 'text', text: 'What is this?' },
          ],
        },
      ],
    });
    expect(body(anthropic.lastRequest()).messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_1x1 } },
          { type: 'text', text: 'What is this?' },
        ],
      },
    ]);
  });

  it('reports the context-window error as its own class, without retrying it', async () => {
    const before = anthropic.requests.length;
    anthropic.reply(anthropicContextExceededReply());
    const events = await chat(direct, {});
    expect(events).toEqual([
      {
        type: 'error',
        error: expect.objectContaining({
          class: 'context_window_exceeded',
          status: 400,
          provider: 'anthropic',
          model: CLAUDE,
        }) as unknown,
      },
    ]);
    expect(anthropic.requests.length).toBe(before + 1);
  });

  it('calls Vertex AI: model in the :streamRawPredict URL, version in the body, bearer token, 1M beta', async () => {
    anthropic.reply({ content: [{ type: 'text', text: 'From Vertex.' }] });
    const events = await chat(
      { kind: 'anthropic', resource: 'f/ai/anthropic_vertex', model: 'claude-sonnet-4-5@20250929' },
      {},
    );
    expect(final(events).message.content).toEqual([{ type: 'text', text: 'From Vertex.' }]);
    const request = anthropic.lastRequest();
    expect(request.path).toBe(
      '/v1/projects/p1/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict',
    );
    expect(request.headers).toMatchObject({
      authorization: `Bearer ${VERTEX_TOKEN}`,
      'anthropic-beta': 'context-1m-2025-08-07',
    });
    expect(request.headers['anthropic-version']).toBeUndefined();
    expect(body(request)).toMatchObject({ anthropic_version: 'vertex-2023-10-16', stream: true });
    expect(body(request).model).toBeUndefined();
  });
});

describe('google ai through the gateway', () => {
  const provider = { kind: 'googleai' as const, resource: 'f/ai/googleai', model: GEMINI };

  it('answers a plain call with the key header and the resource and configured headers', async () => {
    gemini.reply({ parts: [{ text: 'Sunny.' }], usage: { promptTokenCount: 9, candidatesTokenCount: 2 } });
    const events = await chat(provider, {
      system: 'Be brief.',
      stream: false,
      temperature: 0.3,
      maxOutputTokens: 64,
    });
    expect(final(events)).toMatchObject({
      message: { content: [{ type: 'text', text: 'Sunny.' }] },
      finishReason: 'stop',
      usage: { inputTokens: 9, outputTokens: 2 },
    });
    const request = gemini.lastRequest();
    expect(request.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(request.query).toEqual({});
    // Custom headers reach Google AI like every provider (the windmill follow-up, decided: applied).
    expect(request.headers).toMatchObject({
      'x-goog-api-key': GEMINI_KEY,
      'x-goog-user-project': 'billing-1',
      'x-team': 'platform',
    });
    expect(body(request)).toEqual({
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      contents: [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }],
      generationConfig: { temperature: 0.3, maxOutputTokens: 64 },
    });
  });

  it('streams over alt=sse, with usage counting cached and thought tokens', async () => {
    gemini.reply({
      parts: [{ text: 'The quick brown fox jumps.' }],
      chunkSize: 5,
      usage: {
        promptTokenCount: 100,
        candidatesTokenCount: 7,
        thoughtsTokenCount: 20,
        cachedContentTokenCount: 60,
      },
    });
    const events = await chat(provider, {});
    expect(kinds(events, 'text_delta').length).toBeGreaterThan(3);
    expect(final(events).message.content).toEqual([{ type: 'text', text: 'The quick brown fox jumps.' }]);
    expect(final(events).usage).toEqual({
      inputTokens: 100,
      outputTokens: 27,
      cacheReadTokens: 60,
      cacheWriteTokens: 0,
      reasoningTokens: 20,
    });
    const request = gemini.lastRequest();
    expect(request.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent');
    expect(request.query).toEqual({ alt: 'sse' });
  });

  it('streams parallel function calls, and echoes their thoughtSignature on the next turn', async () => {
    gemini.reply({
      parts: [
        { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'sig-gemini-1' },
        { functionCall: { name: 'get_weather', args: { city: 'Tokyo' } } },
      ],
    });
    const events = await chat(provider, {
      tools: [WEATHER_TOOL],
      toolChoice: 'required',
      reasoningEffort: 'low',
    });
    const finished = kinds(events, 'tool_call_finished');
    expect(finished).toEqual([
      expect.objectContaining({
        index: 0,
        name: 'get_weather',
        arguments: '{"city":"Paris"}',
        signature: 'sig-gemini-1',
      }) as unknown,
      expect.objectContaining({ index: 1, name: 'get_weather', arguments: '{"city":"Tokyo"}' }) as unknown,
    ]);
    const answer = final(events);
    expect(answer.finishReason).toBe('tool_calls');
    expect(answer.message.toolCalls?.[0]?.signature).toBe('sig-gemini-1');
    expect(new Set(answer.message.toolCalls?.map((call) => call.id)).size).toBe(2);
    expect(body(gemini.lastRequest())).toMatchObject({
      tools: [
        {
          functionDeclarations: [
            {
              name: 'get_weather',
              description: WEATHER_TOOL.description,
              parameters: WEATHER_TOOL.parameters,
            },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: 'ANY' } },
      generationConfig: { thinkingConfig: { thinkingBudget: 1024, includeThoughts: true } },
    });

    // The fake refuses, as Gemini 3 does, a replayed call that lost its signature.
    gemini.reply({ parts: [{ text: 'Rainy and sunny.' }] });
    const [paris, tokyo] = answer.message.toolCalls ?? [];
    const second = await chat(provider, {
      tools: [WEATHER_TOOL],
      messages: [
        ...hello,
        answer.message,
        {
          role: 'tool',
          toolCallId: paris?.id ?? '',
          name: 'get_weather',
          content: [{ type: 'text', text: 'rainy' }],
        },
        {
          role: 'tool',
          toolCallId: tokyo?.id ?? '',
          name: 'get_weather',
          content: [{ type: 'text', text: 'sunny' }],
        },
      ],
    });
    expect(final(second).message.content).toEqual([{ type: 'text', text: 'Rainy and sunny.' }]);
    expect((body(gemini.lastRequest()).contents as unknown[]).slice(1)).toEqual([
      {
        role: 'model',
        parts: [
          {
            functionCall: { name: 'get_weather', args: { city: 'Paris' } },
            thoughtSignature: 'sig-gemini-1',
          },
          { functionCall: { name: 'get_weather', args: { city: 'Tokyo' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'get_weather', response: { result: 'rainy' } } },
          { functionResponse: { name: 'get_weather', response: { result: 'sunny' } } },
        ],
      },
    ]);
  });

  it('asks for structured output natively with responseSchema', async () => {
    gemini.reply({ parts: [{ text: '{"city":"Paris","celsius":12}' }] });
    const events = await chat(provider, {
      responseFormat: {
        type: 'json_schema',
        name: 'weather',
        schema: { ...WEATHER_SCHEMA, additionalProperties: false },
      },
    });
    expect(
      JSON.parse(
        final(events)
          .message.content.map((part) => part.text)
          .join(''),
      ),
    ).toEqual({ city: 'Paris', celsius: 12 });
    // additionalProperties is gone: Gemini's Schema refuses it (and so does the fake).
    expect(body(gemini.lastRequest()).generationConfig).toEqual({
      responseMimeType: 'application/json',
      responseSchema: WEATHER_SCHEMA,
    });
  });

  it('sends an inline image as inlineData', async () => {
    gemini.reply({ parts: [{ text: 'A pixel.' }] });
    await chat(provider, {
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
    expect(body(gemini.lastRequest()).contents).toEqual([
      {
        role: 'user',
        parts: [{ text: 'What is this?' }, { inlineData: { mimeType: 'image/png', data: PNG_1x1 } }],
      },
    ]);
  });

  it('reports the context-window error as its own class, without retrying it', async () => {
    const before = gemini.requests.length;
    gemini.reply(geminiContextExceededReply());
    const events = await chat(provider, {});
    expect(events).toEqual([
      {
        type: 'error',
        error: expect.objectContaining({
          class: 'context_window_exceeded',
          status: 400,
          provider: 'googleai',
        }) as unknown,
      },
    ]);
    expect(gemini.requests.length).toBe(before + 1);
  });
});

describe('bedrock through the gateway', () => {
  const keys = { kind: 'aws_bedrock' as const, resource: 'f/ai/bedrock_keys', model: BEDROCK_MODEL };
  const bearer = { kind: 'aws_bedrock' as const, resource: 'f/ai/bedrock_bearer', model: BEDROCK_MODEL };

  it('answers a plain call through Converse, signed with the resource access keys', async () => {
    bedrock.reply({ content: [{ text: 'Sunny.' }], usage: { inputTokens: 9, outputTokens: 2 } });
    const events = await chat(keys, {
      system: 'Be brief.',
      stream: false,
      temperature: 0.3,
      maxOutputTokens: 64,
    });
    expect(final(events)).toMatchObject({
      message: { content: [{ type: 'text', text: 'Sunny.' }] },
      finishReason: 'stop',
      provider: 'aws_bedrock',
    });
    const request = bedrock.lastRequest();
    expect(request.path).toBe('/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse');
    expect(request.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIANATIVETEST0001\/\d{8}\/eu-west-1\/bedrock\/aws4_request/,
    );
    expect(request.headers['x-team']).toBe('platform');
    expect(body(request)).toEqual({
      messages: [{ role: 'user', content: [{ text: 'Weather in Paris?' }] }],
      system: [{ text: 'Be brief.' }],
      inferenceConfig: { maxTokens: 64, temperature: 0.3 },
    });
  });

  it('streams through ConverseStream with the bearer API key and the resource headers; usage counts cache reads and writes', async () => {
    bedrock.reply({
      content: [{ text: 'The quick brown fox jumps.' }],
      deltaSize: 5,
      usage: { inputTokens: 20, outputTokens: 7, cacheReadInputTokens: 300, cacheWriteInputTokens: 50 },
    });
    const events = await chat(bearer, {});
    expect(kinds(events, 'text_delta').length).toBeGreaterThan(3);
    expect(final(events).message.content).toEqual([{ type: 'text', text: 'The quick brown fox jumps.' }]);
    expect(final(events).usage).toEqual({
      inputTokens: 370,
      outputTokens: 7,
      cacheReadTokens: 300,
      cacheWriteTokens: 50,
      reasoningTokens: 0,
    });
    const request = bedrock.lastRequest();
    expect(request.path).toBe('/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse-stream');
    expect(request.headers).toMatchObject({
      authorization: `Bearer ${BEDROCK_KEY}`,
      'x-resource': 'r1',
      'x-team': 'platform',
    });
  });

  it('streams parallel tool calls after a text block in order with their ids, then takes the results back', async () => {
    bedrock.reply({
      content: [
        { text: 'Let me check.' },
        { toolUse: { toolUseId: 'tooluse_paris', name: 'get_weather', input: { city: 'Paris' } } },
        { toolUse: { toolUseId: 'tooluse_tokyo', name: 'get_weather', input: { city: 'Tokyo' } } },
      ],
      deltaSize: 6,
    });
    const events = await chat(bearer, { tools: [WEATHER_TOOL], toolChoice: 'auto' });
    expect(kinds(events, 'tool_call_started')).toEqual([
      { type: 'tool_call_started', index: 0, id: 'tooluse_paris', name: 'get_weather' },
      { type: 'tool_call_started', index: 1, id: 'tooluse_tokyo', name: 'get_weather' },
    ]);
    expect(kinds(events, 'tool_call_finished')).toEqual([
      {
        type: 'tool_call_finished',
        index: 0,
        id: 'tooluse_paris',
        name: 'get_weather',
        arguments: '{"city":"Paris"}',
      },
      {
        type: 'tool_call_finished',
        index: 1,
        id: 'tooluse_tokyo',
        name: 'get_weather',
        arguments: '{"city":"Tokyo"}',
      },
    ]);
    const answer = final(events);
    expect(answer.finishReason).toBe('tool_calls');
    expect(body(bedrock.lastRequest()).toolConfig).toEqual({
      tools: [
        {
          toolSpec: {
            name: 'get_weather',
            description: WEATHER_TOOL.description,
            inputSchema: { json: WEATHER_TOOL.parameters },
          },
        },
      ],
      toolChoice: { auto: {} },
    });

    // The fake checks, as Bedrock does, that the next user turn answers every tool use.
    bedrock.reply({ content: [{ text: 'Rainy and sunny.' }] });
    const second = await chat(bearer, {
      messages: [
        ...hello,
        answer.message,
        {
          role: 'tool',
          toolCallId: 'tooluse_paris',
          name: 'get_weather',
          content: [{ type: 'text', text: 'rainy' }],
        },
        {
          role: 'tool',
          toolCallId: 'tooluse_tokyo',
          name: 'get_weather',
          content: [{ type: 'text', text: 'sunny' }],
        },
      ],
    });
    expect(final(second).message.content).toEqual([{ type: 'text', text: 'Rainy and sunny.' }]);
    expect((body(bedrock.lastRequest()).messages as unknown[]).slice(1)).toEqual([
      {
        role: 'assistant',
        content: [
          { text: 'Let me check.' },
          { toolUse: { toolUseId: 'tooluse_paris', name: 'get_weather', input: { city: 'Paris' } } },
          { toolUse: { toolUseId: 'tooluse_tokyo', name: 'get_weather', input: { city: 'Tokyo' } } },
        ],
      },
      {
        role: 'user',
        content: [
          { toolResult: { toolUseId: 'tooluse_paris', content: [{ text: 'rainy' }], status: 'success' } },
          { toolResult: { toolUseId: 'tooluse_tokyo', content: [{ text: 'sunny' }], status: 'success' } },
        ],
      },
    ]);
  });

  it('answers structured output through a forced tool, as text', async () => {
    bedrock.reply({
      content: [
        { toolUse: { toolUseId: 'tooluse_out', name: 'weather', input: { city: 'Paris', celsius: 12 } } },
      ],
    });
    const events = await chat(bearer, {
      responseFormat: { type: 'json_schema', name: 'weather', schema: WEATHER_SCHEMA },
    });
    expect(
      JSON.parse(
        final(events)
          .message.content.map((part) => part.text)
          .join(''),
      ),
    ).toEqual({ city: 'Paris', celsius: 12 });
    expect(final(events).finishReason).toBe('stop');
    expect(body(bedrock.lastRequest()).toolConfig).toEqual({
      tools: [
        {
          toolSpec: {
            name: 'weather',
            description: expect.any(String) as unknown,
            inputSchema: { json: WEATHER_SCHEMA },
          },
        },
      ],
      toolChoice: { tool: { name: 'weather' } },
    });
  });

  it('sends an inline image as image bytes', async () => {
    bedrock.reply({ content: [{ text: 'A pixel.' }] });
    await chat(bearer, {
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
    expect(body(bedrock.lastRequest()).messages).toEqual([
      {
        role: 'user',
        content: [{ text: 'What is this?' }, { image: { format: 'png', source: { bytes: PNG_1x1 } } }],
      },
    ]);
  });

  it('reports the context-window error as its own class, without retrying it', async () => {
    const before = bedrock.requests.length;
    bedrock.reply(bedrockContextExceededReply());
    const events = await chat(bearer, {});
    expect(events).toEqual([
      {
        type: 'error',
        error: expect.objectContaining({
          class: 'context_window_exceeded',
          status: 400,
          providerCode: 'ValidationException',
          provider: 'aws_bedrock',
        }) as unknown,
      },
    ]);
    expect(bedrock.requests.length).toBe(before + 1);
  });

  it('sends SSE keepalives on the OpenAI-compatible proxy while a Bedrock stream is silent', async () => {
    bedrock.reply({ silentStream: true });
    const controller = new AbortController();
    const response = await fetch(`${cast.gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${cast.reader.token}`,
        'content-type': 'application/json',
        ...cast.headers('f/ai/bedrock_bearer'),
      },
      body: JSON.stringify({
        model: BEDROCK_MODEL,
        stream: true,
        messages: [{ role: 'user', content: 'think slowly' }],
      }),
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    const decoder = new TextDecoder();
    let received = '';
    for await (const chunk of (response.body ?? []) as AsyncIterable<Uint8Array>) {
      received += decoder.decode(chunk, { stream: true });
      if ((received.match(/: keepalive\n\n/g)?.length ?? 0) >= 2) break;
    }
    expect(received.match(/: keepalive\n\n/g)?.length).toBeGreaterThanOrEqual(2);
    controller.abort();
    const silent = bedrock.lastRequest();
    await waitFor(() => silent.aborted, { description: 'the upstream Bedrock stream to be aborted' });
  });
});
