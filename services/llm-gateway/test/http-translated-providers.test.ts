import Anthropic from '@anthropic-ai/sdk';
import {
  startFakeAnthropic,
  startFakeBedrock,
  startFakeGemini,
  type FakeAnthropic,
  type FakeBedrock,
  type FakeGemini,
} from '@flowmesh/testing';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayCast, type GatewayCast } from './support/gateway-cast.js';

const ANTHROPIC_KEY = 'sk-ant-test-0123456789abcdefghijkl';
const GEMINI_KEY = 'AIzaTest0123456789abcdefghijklmnopq';
const BEDROCK_KEY = 'bedrock-api-key-0123456789abcdef';
const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Get weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

interface StreamedAnswer {
  readonly calls: Array<{ id?: string; name?: string; arguments: string }>;
  readonly finish: string | null;
  readonly usage?: OpenAI.CompletionUsage;
}

async function collect(stream: AsyncIterable<OpenAI.ChatCompletionChunk>): Promise<StreamedAnswer> {
  const calls = new Map<number, { id?: string; name?: string; arguments: string }>();
  let finish: string | null = null;
  let usage: OpenAI.CompletionUsage | undefined;
  for await (const chunk of stream) {
    usage = chunk.usage ?? usage;
    for (const choice of chunk.choices) {
      finish = choice.finish_reason ?? finish;
      for (const call of choice.delta.tool_calls ?? []) {
        const seen = calls.get(call.index) ?? { arguments: '' };
        calls.set(call.index, {
          id: call.id ?? seen.id,
          name: call.function?.name ?? seen.name,
          arguments: seen.arguments + (call.function?.arguments ?? ''),
        });
      }
    }
  }
  return {
    calls: [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call),
    finish,
    ...(usage ? { usage } : {}),
  };
}

describe('llm-gateway HTTP: the OpenAI SDK against Anthropic, Gemini and Bedrock, and the Anthropic SDK through the workspace proxy', () => {
  let cast: GatewayCast;
  let anthropic: FakeAnthropic;
  let gemini: FakeGemini;
  let bedrock: FakeBedrock;

  const openai = (resource: string) =>
    new OpenAI({
      apiKey: cast.reader.token,
      baseURL: `${cast.gateway.url}/v1`,
      defaultHeaders: cast.headers(resource),
      maxRetries: 0,
    });

  const streamWeather = (resource: string, model: string) =>
    openai(resource).chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'Weather in Paris and Tokyo?' }],
      tools: [weatherTool],
      stream: true,
      stream_options: { include_usage: true },
    });

  beforeAll(async () => {
    [anthropic, gemini, bedrock] = await Promise.all([
      startFakeAnthropic({ apiKey: ANTHROPIC_KEY }),
      startFakeGemini({ apiKey: GEMINI_KEY }),
      startFakeBedrock({ bearerToken: BEDROCK_KEY, region: 'us-east-1' }),
    ]);
    cast = await startGatewayCast({
      gatewayEnv: { FLOWMESH_GATEWAY_EXTRA_HEADERS: '{"x-team":"platform"}' },
    });
    await cast.providerResource('f/ai/claude', 'anthropic', { base_url: anthropic.url }, ANTHROPIC_KEY);
    await cast.providerResource(
      'f/ai/gemini',
      'googleai',
      { base_url: `${gemini.url}/v1beta`, custom_headers: { 'x-resource': 'gemini' } },
      GEMINI_KEY,
    );
    await cast.providerResource(
      'f/ai/bedrock',
      'aws_bedrock',
      { base_url: bedrock.url, region: 'us-east-1' },
      BEDROCK_KEY,
    );
  });

  afterAll(async () => {
    await cast?.stop();
    await Promise.all([anthropic?.close(), gemini?.close(), bedrock?.close()]);
  });

  it('Anthropic: parallel tool calls keep their order and ids, usage includes cached tokens', async () => {
    anthropic.reply({
      content: [
        { type: 'text', text: 'Let me check.' },
        { type: 'tool_use', id: 'toolu_paris', name: 'get_weather', input: { city: 'Paris' } },
        { type: 'tool_use', id: 'toolu_tokyo', name: 'get_weather', input: { city: 'Tokyo' } },
      ],
      stop_reason: 'tool_use',
      usage: { input_tokens: 400, output_tokens: 60, cache_read_input_tokens: 1800 },
    });
    const answer = await collect(await streamWeather('f/ai/claude', 'claude-sonnet-4-5'));
    expect(
      answer.calls.map((call) => ({ ...call, arguments: JSON.parse(call.arguments) as unknown })),
    ).toEqual([
      { id: 'toolu_paris', name: 'get_weather', arguments: { city: 'Paris' } },
      { id: 'toolu_tokyo', name: 'get_weather', arguments: { city: 'Tokyo' } },
    ]);
    expect(answer.finish).toBe('tool_calls');
    expect(answer.usage).toMatchObject({
      prompt_tokens: 2200,
      completion_tokens: 60,
      prompt_tokens_details: { cached_tokens: 1800 },
    });
    const sent = anthropic.lastRequest();
    expect(sent.path).toBe('/v1/messages');
    expect(sent.headers['x-api-key'] ?? sent.headers.authorization).toContain(ANTHROPIC_KEY);
    expect(sent.headers['x-team']).toBe('platform');
    expect(sent.body).toMatchObject({
      model: 'claude-sonnet-4-5',
      stream: true,
      tools: [{ name: 'get_weather' }],
    });
  });

  it('Gemini: whole function calls become OpenAI tool-call chunks, configured and resource headers included', async () => {
    gemini.reply({
      parts: [
        { functionCall: { name: 'get_weather', args: { city: 'Paris' } } },
        { functionCall: { name: 'get_weather', args: { city: 'Tokyo' } } },
      ],
      finishReason: 'STOP',
      usage: { promptTokenCount: 12, candidatesTokenCount: 8 },
    });
    const answer = await collect(await streamWeather('f/ai/gemini', 'gemini-2.5-flash'));
    expect(
      answer.calls.map((call) => ({ name: call.name, arguments: JSON.parse(call.arguments) as unknown })),
    ).toEqual([
      { name: 'get_weather', arguments: { city: 'Paris' } },
      { name: 'get_weather', arguments: { city: 'Tokyo' } },
    ]);
    expect(answer.calls.every((call) => typeof call.id === 'string' && call.id.length > 0)).toBe(true);
    expect(answer.finish).toBe('tool_calls');
    const sent = gemini.lastRequest();
    expect(sent.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent');
    // The follow-up of the windmill plan: custom headers reach Google AI too.
    expect(sent.headers['x-team']).toBe('platform');
    expect(sent.headers['x-resource']).toBe('gemini');
    expect(sent.body).toMatchObject({ tools: [{ functionDeclarations: [{ name: 'get_weather' }] }] });
  });

  it('Bedrock: tool calls through ConverseStream, bearer API key, indices only on tool-use blocks', async () => {
    bedrock.reply({
      content: [
        { text: 'Checking both.' },
        { toolUse: { toolUseId: 'tooluse_paris', name: 'get_weather', input: { city: 'Paris' } } },
        { toolUse: { toolUseId: 'tooluse_tokyo', name: 'get_weather', input: { city: 'Tokyo' } } },
      ],
      stopReason: 'tool_use',
      usage: { inputTokens: 412, outputTokens: 38 },
    });
    const answer = await collect(
      await streamWeather('f/ai/bedrock', 'anthropic.claude-3-5-sonnet-20240620-v1:0'),
    );
    expect(
      answer.calls.map((call) => ({ ...call, arguments: JSON.parse(call.arguments) as unknown })),
    ).toEqual([
      { id: 'tooluse_paris', name: 'get_weather', arguments: { city: 'Paris' } },
      { id: 'tooluse_tokyo', name: 'get_weather', arguments: { city: 'Tokyo' } },
    ]);
    expect(answer.finish).toBe('tool_calls');
    expect(answer.usage).toMatchObject({ prompt_tokens: 412, completion_tokens: 38 });
    const sent = bedrock.lastRequest();
    expect(sent.path).toContain('/converse-stream');
    expect(sent.headers.authorization).toBe(`Bearer ${BEDROCK_KEY}`);
  });

  it('answers a non-streaming completion from Anthropic in the chat.completion shape', async () => {
    anthropic.reply({
      content: [{ type: 'text', text: 'Bonjour.' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 5, output_tokens: 2 },
    });
    const completion = await openai('f/ai/claude').chat.completions.create({
      model: 'claude-sonnet-4-5',
      messages: [
        { role: 'system', content: 'Answer in French.' },
        { role: 'user', content: 'Hello' },
      ],
      max_tokens: 100,
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0]).toMatchObject({
      message: { role: 'assistant', content: 'Bonjour.' },
      finish_reason: 'stop',
    });
    expect(completion.usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 });
    expect(anthropic.lastRequest().body).toMatchObject({
      system: expect.anything() as unknown,
      max_tokens: 100,
    });
  });

  it('the Anthropic SDK works unchanged through the workspace proxy, streaming and not', async () => {
    const sdk = new Anthropic({
      apiKey: cast.reader.token,
      baseURL: `${cast.gateway.url}/api/w/main/ai/proxy`,
      defaultHeaders: { 'x-flowmesh-provider-resource': 'f/ai/claude' },
      maxRetries: 0,
    });
    anthropic.reply({
      content: [{ type: 'text', text: 'Hi there.' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 3, output_tokens: 3 },
    });
    const message = await sdk.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'Hi there.' })]);
    expect(
      anthropic.lastRequest().headers['x-api-key'] ?? anthropic.lastRequest().headers.authorization,
    ).toContain(ANTHROPIC_KEY);

    anthropic.reply({
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }],
      stop_reason: 'tool_use',
      usage: { input_tokens: 10, output_tokens: 7 },
    });
    const stream = sdk.messages.stream({
      model: 'claude-sonnet-4-5',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [
        { name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } },
      ],
    });
    const final = await stream.finalMessage();
    expect(final.stop_reason).toBe('tool_use');
    expect(final.content).toEqual([
      expect.objectContaining({
        type: 'tool_use',
        id: 'toolu_1',
        name: 'get_weather',
        input: { city: 'Paris' },
      }),
    ]);
  });
});
