import { brotliCompressSync, gzipSync } from 'node:zlib';
import { startFakeOpenAI, waitFor, type FakeOpenAI } from '@flowmesh/testing';
import OpenAI from 'openai';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayCast, type GatewayCast } from './support/gateway-cast.js';

const SECRET = 'sk-test-0123456789abcdefghijklmnopqrstuv';
const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Get weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

describe('llm-gateway HTTP: OpenAI API with an OpenAI-compatible provider behind it', () => {
  let cast: GatewayCast;
  let fake: FakeOpenAI;

  const client = (token: string, resource = 'f/ai/openai') =>
    new OpenAI({
      apiKey: token,
      baseURL: `${cast.gateway.url}/v1`,
      defaultHeaders: cast.headers(resource),
      maxRetries: 0,
    });

  beforeAll(async () => {
    fake = await startFakeOpenAI({ apiKey: SECRET });
    cast = await startGatewayCast({
      gatewayEnv: { FLOWMESH_GATEWAY_EXTRA_HEADERS: 'X-Team: platform; X-Override: from-config' },
    });
    await cast.providerResource(
      'f/ai/openai',
      'openai',
      { base_url: `${fake.url}/v1`, custom_headers: { 'X-Override': 'from-resource' } },
      SECRET,
    );
  });

  afterAll(async () => {
    await cast?.stop();
    await fake?.close();
  });

  it('streams a tool-calling completion to the official SDK, with the resource key and both custom header sources', async () => {
    fake.reply({
      toolCalls: [
        { id: 'call_paris', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { id: 'call_tokyo', name: 'get_weather', arguments: '{"city":"Tokyo"}' },
      ],
      usage: { prompt_tokens: 82, completion_tokens: 41, cached_tokens: 10 },
    });
    const stream = await client(cast.reader.token).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Weather in Paris and Tokyo?' }],
      tools: [weatherTool],
      stream: true,
      stream_options: { include_usage: true },
    });
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
    expect([...calls.values()]).toEqual([
      { id: 'call_paris', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: 'call_tokyo', name: 'get_weather', arguments: '{"city":"Tokyo"}' },
    ]);
    expect(finish).toBe('tool_calls');
    expect(usage).toMatchObject({ prompt_tokens: 82, completion_tokens: 41 });

    const sent = fake.lastRequest();
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe(`Bearer ${SECRET}`);
    // Precedence: the resource's custom headers over the configured ones over the adapter's.
    expect(sent.headers['x-team']).toBe('platform');
    expect(sent.headers['x-override']).toBe('from-resource');
    // The caller's registry token never reaches the provider.
    expect(sent.rawBody).not.toContain(cast.reader.token);
    expect(JSON.stringify(sent.headers)).not.toContain(cast.reader.token);
    expect(sent.body).toMatchObject({ model: 'gpt-4o-mini', stream: true, tools: [weatherTool] });
  });

  it('answers a non-streaming structured-output completion, and writes one audit row per call', async () => {
    fake.reply({ text: '{"city":"Paris","temp":12}', usage: { prompt_tokens: 20, completion_tokens: 9 } });
    const completion = await client(cast.reader.token).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Weather in Paris as JSON' }],
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'weather',
          strict: true,
          schema: { type: 'object', properties: { city: { type: 'string' } } },
        },
      },
    });
    expect(completion.choices[0]?.message.content).toBe('{"city":"Paris","temp":12}');
    expect(fake.lastRequest().body).toMatchObject({
      response_format: { type: 'json_schema', json_schema: { name: 'weather' } },
    });

    const dataSource = cast.gateway.running.app.get(DataSource);
    const rows = await waitFor(
      async () => {
        const found = await dataSource.query<Array<Record<string, unknown>>>(
          `SELECT workspace, identity, provider, model, stream, input_tokens, output_tokens, status, http_status, request_body
             FROM llm_call_audit WHERE stream = false AND input_tokens = 20`,
        );
        return found.length > 0 ? found : undefined;
      },
      { description: 'the audit row of the non-streaming call' },
    );
    expect(rows).toEqual([
      {
        workspace: 'main',
        identity: 'reader',
        provider: 'openai',
        model: 'gpt-4o-mini',
        stream: false,
        input_tokens: 20,
        output_tokens: 9,
        status: 'ok',
        http_status: 200,
        // Bodies are kept only with FLOWMESH_GATEWAY_AUDIT_BODIES=true.
        request_body: null,
      },
    ]);
  });

  it('lists models and computes embeddings through the provider', async () => {
    const models = await client(cast.reader.token).models.list();
    expect(models.data.map((model) => model.id)).toContain('gpt-4o-mini');
    const embeddings = await client(cast.reader.token).embeddings.create({
      model: 'text-embedding-3-small',
      input: ['a', 'b'],
    });
    expect(embeddings.data).toHaveLength(2);
    expect(embeddings.data[0]?.embedding.length).toBeGreaterThan(0);
  });

  it('refuses a caller without a valid token, one who may not read the resource, and a missing resource header', async () => {
    const before = fake.requests.length;
    const ask = (openai: OpenAI) =>
      openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });

    await expect(ask(client('fm_not_a_real_token'))).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    const hidden = await ask(client(cast.stranger.token)).catch((error: unknown) => error);
    expect(hidden).toBeInstanceOf(OpenAI.NotFoundError);
    expect((hidden as InstanceType<typeof OpenAI.NotFoundError>).message).not.toContain(SECRET);
    const noHeader = new OpenAI({
      apiKey: cast.reader.token,
      baseURL: `${cast.gateway.url}/v1`,
      maxRetries: 0,
    });
    await expect(ask(noHeader)).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    const response = await fetch(`${cast.gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...cast.headers('f/ai/openai') },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({
      error: { type: 'authentication_error', code: 'invalid_api_key' },
    });
    expect(fake.requests.length).toBe(before);
  });

  it('takes a compressed body on the same route, and refuses an unknown encoding and JSON nested too deep', async () => {
    const post = (body: Buffer | string, encoding?: string, path = '/v1/chat/completions') =>
      fetch(`${cast.gateway.url}${path}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${cast.reader.token}`,
          'content-type': 'application/json',
          ...(encoding ? { 'content-encoding': encoding } : {}),
          ...cast.headers('f/ai/openai'),
        },
        body,
      });
    const request = (content: string) =>
      JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] });
    for (const [encoding, compress] of [
      ['gzip', gzipSync],
      ['br', brotliCompressSync],
    ] as const) {
      fake.reply({ text: `decoded from ${encoding}` });
      const response = await post(compress(request(`sent as ${encoding}`)), encoding);
      expect(response.status).toBe(200);
      expect(response.headers.get('x-flowmesh-service')).toBe('llm-gateway');
      expect(await response.json()).toMatchObject({
        choices: [{ message: { content: `decoded from ${encoding}` } }],
      });
      // The provider gets the body decoded, as the caller wrote it.
      expect(fake.lastRequest().rawBody).toBe(request(`sent as ${encoding}`));
    }
    // The route as Express matched it: not case-sensitive, a trailing slash optional.
    for (const path of ['/v1/chat/completions/', '/V1/Chat/Completions?x=1']) {
      fake.reply({ text: `answered on ${path}` });
      const response = await post(request('hi'), undefined, path);
      expect(await response.json()).toMatchObject({
        choices: [{ message: { content: `answered on ${path}` } }],
      });
    }

    const before = fake.requests.length;
    const unknown = await post(request('hi'), 'compress');
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({
      error: { message: 'unsupported content encoding "compress"', code: 'unsupported' },
    });
    const corrupt = await post(Buffer.from(request('hi')), 'gzip');
    expect(corrupt.status).toBe(400);
    expect(await corrupt.json()).toMatchObject({ error: { message: 'the body is not valid gzip' } });
    const deep = await post(
      `{"model":"gpt-4o-mini","messages":[{"role":"user","content":${'['.repeat(200)}${']'.repeat(200)}}]}`,
    );
    expect(deep.status).toBe(400);
    expect(await deep.json()).toMatchObject({
      error: { message: 'the JSON body nests deeper than 128 levels', type: 'invalid_request_error' },
    });
    expect(fake.requests.length).toBe(before);
  });

  it('maps a provider error to its OpenAI status without the provider quoting the key back', async () => {
    fake.reply({
      error: {
        status: 429,
        message: 'Rate limit reached',
        type: 'requests',
        code: 'rate_limit_exceeded',
        headers: { 'retry-after': '7' },
      },
    });
    const error = await client(cast.reader.token)
      .chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect((error as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after')).toBe('7');
  });
});
