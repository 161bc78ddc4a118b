import { createOpenAI } from '@ai-sdk/openai';
import {
  startFakeBedrock,
  startFakeGemini,
  startFakeOpenAI,
  type FakeBedrock,
  type FakeGemini,
  type FakeOpenAI,
} from '@flowmesh/testing';
import { jsonSchema, streamText, tool } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayCast, type GatewayCast } from './support/gateway-cast.js';

const OPENAI_KEY = 'sk-proxy-eeeeeeeeeeeeeeeeeeeeeeeeeeee';
const GEMINI_KEY = 'AIzaProxy0123456789abcdefghijklmnop';
const BEDROCK_KEY = 'bedrock-proxy-key-0123456789abcdef';

describe('llm-gateway HTTP: the workspace proxy in each execution mode, and the Vercel AI SDK', () => {
  let cast: GatewayCast;
  let openaiFake: FakeOpenAI;
  let gemini: FakeGemini;
  let bedrock: FakeBedrock;

  const proxyClient = (resource: string) =>
    new OpenAI({
      apiKey: cast.reader.token,
      baseURL: `${cast.gateway.url}/api/w/main/ai/proxy`,
      defaultHeaders: { 'x-flowmesh-provider-resource': resource },
      maxRetries: 0,
    });

  beforeAll(async () => {
    [openaiFake, gemini, bedrock] = await Promise.all([
      startFakeOpenAI({ apiKey: OPENAI_KEY }),
      startFakeGemini({ apiKey: GEMINI_KEY }),
      startFakeBedrock({ bearerToken: BEDROCK_KEY, region: 'us-east-1' }),
    ]);
    cast = await startGatewayCast();
    await cast.providerResource('f/ai/openai', 'openai', { base_url: `${openaiFake.url}/v1` }, OPENAI_KEY);
    await cast.providerResource('f/ai/gemini', 'googleai', { base_url: `${gemini.url}/v1beta` }, GEMINI_KEY);
    await cast.providerResource(
      'f/ai/bedrock',
      'aws_bedrock',
      { base_url: bedrock.url, region: 'us-east-1' },
      BEDROCK_KEY,
    );
  });

  afterAll(async () => {
    await cast?.stop();
    await Promise.all([openaiFake?.close(), gemini?.close(), bedrock?.close()]);
  });

  it("forwards an OpenAI-shaped request to an OpenAI-compatible provider as sent, with the gateway's auth", async () => {
    openaiFake.reply({ text: 'forwarded' });
    const completion = await proxyClient('f/ai/openai').chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
      seed: 7,
    });
    expect(completion.choices[0]?.message.content).toBe('forwarded');
    const sent = openaiFake.lastRequest();
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(sent.body).toMatchObject({ model: 'gpt-4o-mini', seed: 7 });
  });

  it('turns a FIM request into a chat completion for a provider without native FIM', async () => {
    openaiFake.reply({ text: 'return 1' });
    const response = await fetch(`${cast.gateway.url}/api/w/main/ai/proxy/fim/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${cast.reader.token}`,
        'content-type': 'application/json',
        'x-flowmesh-provider-resource': 'f/ai/openai',
      },
      body: JSON.stringify({
        model: 'gpt-4o-mini',
        prompt: 'def one():\n    ',
        suffix: '\n',
        max_tokens: 16,
      }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      object: 'chat.completion',
      choices: [{ message: { content: 'return 1' } }],
    });
    const sent = openaiFake.lastRequest();
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.body).toMatchObject({
      model: 'gpt-4o-mini',
      max_tokens: 16,
      messages: [{ role: 'system' }, { role: 'user' }],
    });
    expect(JSON.stringify(sent.body)).toContain('def one():');
  });

  it("answers Google AI in OpenAI's shape (translated both ways), model list included", async () => {
    gemini.reply({
      parts: [{ text: 'Bonjour' }],
      finishReason: 'STOP',
      usage: { promptTokenCount: 4, candidatesTokenCount: 2 },
    });
    const completion = await proxyClient('f/ai/gemini').chat.completions.create({
      model: 'gemini-2.5-flash',
      messages: [{ role: 'user', content: 'Hello in French' }],
    });
    expect(completion.choices[0]).toMatchObject({ message: { content: 'Bonjour' }, finish_reason: 'stop' });
    expect(completion.usage).toMatchObject({ prompt_tokens: 4, completion_tokens: 2 });
    expect(gemini.lastRequest().path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(gemini.lastRequest().headers['x-goog-api-key']).toBe(GEMINI_KEY);
  });

  it("answers Bedrock in OpenAI's shape through the SDK, streaming", async () => {
    bedrock.reply({
      content: [{ text: 'Hello from Bedrock' }],
      stopReason: 'end_turn',
      usage: { inputTokens: 5, outputTokens: 4 },
    });
    const stream = await proxyClient('f/ai/bedrock').chat.completions.create({
      model: 'anthropic.claude-3-5-sonnet-20240620-v1:0',
      messages: [{ role: 'user', content: 'Hello' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Hello from Bedrock');
    expect(bedrock.lastRequest().path).toContain('/converse-stream');
  });

  it('serves the Vercel AI SDK unchanged: a streamed tool call through /v1 from Gemini', async () => {
    gemini.reply({
      parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }],
      finishReason: 'STOP',
      usage: { promptTokenCount: 9, candidatesTokenCount: 3 },
    });
    const provider = createOpenAI({
      apiKey: cast.reader.token,
      baseURL: `${cast.gateway.url}/v1`,
      headers: cast.headers('f/ai/gemini'),
    });
    const result = streamText({
      model: provider.chat('gemini-2.5-flash'),
      prompt: 'Weather in Paris?',
      tools: {
        get_weather: tool({
          description: 'Get weather',
          inputSchema: jsonSchema<{ city: string }>({
            type: 'object',
            properties: { city: { type: 'string' } },
            required: ['city'],
          }),
        }),
      },
    });
    const calls = await result.toolCalls;
    expect(calls.map((call) => ({ name: call.toolName, input: call.input }))).toEqual([
      { name: 'get_weather', input: { city: 'Paris' } },
    ]);
    expect(await result.finishReason).toBe('tool-calls');
  });
});
