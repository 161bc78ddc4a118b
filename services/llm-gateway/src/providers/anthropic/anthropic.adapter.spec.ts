import { readFileSync } from 'node:fs';
import { createParser } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import type { ChatCall, ProviderStreamEvent, StreamFrame } from '../provider-adapter.js';
import { sealCredentials, type ProviderCredentials } from '../provider-credentials.js';
import { anthropicAdapter } from './anthropic.adapter.js';
import { buildAnthropicBody } from './anthropic-request.builder.js';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

async function* sseFrames(text: string): AsyncIterable<StreamFrame> {
  const frames: StreamFrame[] = [];
  const parser = createParser({
    onEvent: (event) => frames.push({ ...(event.event ? { event: event.event } : {}), data: event.data }),
  });
  parser.feed(text);
  for (const frame of frames) yield await Promise.resolve(frame);
}

async function collect(events: AsyncIterable<ProviderStreamEvent>): Promise<ProviderStreamEvent[]> {
  const out: ProviderStreamEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

const credentials = (extra: Partial<ProviderCredentials> = {}): ProviderCredentials =>
  sealCredentials({
    provider: 'anthropic',
    api_key: 'sk-ant-test',
    platform: 'standard',
    enable_1m_context: false,
    custom_headers: {},
    ...extra,
  });

const call = (extra: Partial<ChatCall> = {}): ChatCall => ({
  model: 'claude-sonnet-4-5',
  stream: false,
  messages: [{ role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] }],
  ...extra,
});

describe('anthropic request builder', () => {
  it('puts the system prompt top-level with cache markers, and keeps sampling under the pinned API version', () => {
    const body = buildAnthropicBody(
      call({
        system: [{ text: 'long rules', cache: {} }, { text: 'tail' }],
        temperature: 0.2,
        maxOutputTokens: 300,
        stop: ['END'],
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }], cache: { ttl: '1h' } }],
      }),
    );
    expect(body).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 300,
      system: [
        { type: 'text', text: 'long rules', cache_control: { type: 'ephemeral' } },
        { type: 'text', text: 'tail' },
      ],
      messages: [
        {
          role: 'user',
          content: [{ type: 'text', text: 'Hi', cache_control: { type: 'ephemeral', ttl: '1h' } }],
        },
      ],
      temperature: 0.2,
      stop_sequences: ['END'],
    });
    const request = anthropicAdapter.buildRequest(call(), credentials());
    expect(request.url).toBe('https://api.anthropic.com/v1/messages');
    expect(request.headers).toMatchObject({ 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01' });
  });

  it('replays a tool round: thinking with its signature first, tool results merged into one user turn', () => {
    const body = buildAnthropicBody(
      call({
        reasoningEffort: 'low',
        temperature: 0.5,
        tools: [{ name: 'get_weather', description: 'Weather', parameters: { type: 'object' } }],
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'Paris and Tokyo?' }] },
          {
            role: 'assistant',
            content: [
              { type: 'reasoning', text: 'Two cities.', signature: 'sig-1' },
              { type: 'reasoning', text: '', redacted: 'opaque' },
              { type: 'reasoning', text: 'from another provider' },
              { type: 'text', text: 'Checking.' },
            ],
            toolCalls: [
              { id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
              { id: 'toolu_2', name: 'get_weather', arguments: 'not json' },
            ],
          },
          {
            role: 'tool',
            toolCallId: 'toolu_1',
            name: 'get_weather',
            content: [{ type: 'text', text: 'rainy' }],
          },
          {
            role: 'tool',
            toolCallId: 'toolu_2',
            name: 'get_weather',
            content: [{ type: 'inline_data', mediaType: 'image/png', data: 'iVBORw0KGgo=' }],
            isError: true,
          },
          { role: 'user', content: [{ type: 'text', text: 'And?' }] },
        ],
      }),
    );
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(body.max_tokens).toBe(8192 + 2048);
    expect(body.temperature).toBeUndefined();
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Paris and Tokyo?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Two cities.', signature: 'sig-1' },
          { type: 'redacted_thinking', data: 'opaque' },
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'rainy' }] },
          {
            type: 'tool_result',
            tool_use_id: 'toolu_2',
            content: [
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
            ],
            is_error: true,
          },
          { type: 'text', text: 'And?' },
        ],
      },
    ]);
  });

  it('sends images and PDFs as base64 blocks and refuses an attachment by reference as our bug', () => {
    const body = buildAnthropicBody(
      call({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'inline_data', mediaType: 'image/jpeg', data: '/9j/4AAQ' },
              { type: 'inline_data', mediaType: 'application/pdf', data: 'JVBERi0x', filename: 'report.pdf' },
              { type: 'text', text: 'Describe.' },
            ],
          },
        ],
      }),
    );
    expect(body.messages[0]?.content).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/4AAQ' } },
      {
        type: 'document',
        source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0x' },
        title: 'report.pdf',
      },
      { type: 'text', text: 'Describe.' },
    ]);
    expect(() =>
      buildAnthropicBody(
        call({
          messages: [
            {
              role: 'user',
              content: [{ type: 'attachment', object: { key: 'a.png' }, mediaType: 'image/png' }],
            },
          ],
        }),
      ),
    ).toThrow(
      expect.objectContaining({
        providerError: expect.objectContaining({ class: 'bad_request_internal' }) as unknown,
      }) as Error,
    );
  });

  it('forces the structured-output tool, and lets the model call its own tools first when it has some', () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    const alone = buildAnthropicBody(
      call({ responseFormat: { type: 'json_schema', name: 'weather', schema }, reasoningEffort: 'high' }),
    );
    expect(alone.tools).toEqual([
      { name: 'weather', description: expect.any(String) as unknown, input_schema: schema },
    ]);
    expect(alone.tool_choice).toEqual({ type: 'tool', name: 'weather' });
    // Claude refuses thinking while a tool call is forced.
    expect(alone.thinking).toBeUndefined();
    const withTools = buildAnthropicBody(
      call({
        responseFormat: { type: 'json_schema', name: 'get_weather', schema },
        tools: [{ name: 'get_weather', parameters: { type: 'object' } }],
        parallelToolCalls: false,
      }),
    );
    expect(withTools.tools?.map((tool) => tool.name)).toEqual(['get_weather', 'get_weather_out']);
    expect(withTools.tool_choice).toEqual({ type: 'any', disable_parallel_tool_use: true });
  });

  it('maps tool choices', () => {
    const tools = [{ name: 'a', parameters: {} }];
    expect(buildAnthropicBody(call({ tools, toolChoice: 'required' })).tool_choice).toEqual({ type: 'any' });
    expect(buildAnthropicBody(call({ tools, toolChoice: 'none' })).tool_choice).toEqual({ type: 'none' });
    expect(buildAnthropicBody(call({ tools, toolChoice: { type: 'tool', name: 'a' } })).tool_choice).toEqual({
      type: 'tool',
      name: 'a',
    });
    expect(buildAnthropicBody(call({ tools })).tool_choice).toBeUndefined();
  });

  it('builds the Vertex request: model in the URL, version in the body, bearer token, 1M beta', () => {
    const vertex = credentials({
      platform: 'google_vertex_ai',
      api_key: 'ya29.token',
      enable_1m_context: true,
      base_url: 'https://us-east5-aiplatform.googleapis.com/v1/projects/p1/locations/us-east5',
    });
    const request = anthropicAdapter.buildRequest(
      call({ model: 'claude-sonnet-4-5@20250929', stream: true }),
      vertex,
    );
    expect(request.url).toBe(
      'https://us-east5-aiplatform.googleapis.com/v1/projects/p1/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict',
    );
    expect(request.headers).toEqual({
      'content-type': 'application/json',
      accept: 'text/event-stream',
      authorization: 'Bearer ya29.token',
      'anthropic-beta': 'context-1m-2025-08-07',
    });
    expect(request.body).toMatchObject({ anthropic_version: 'vertex-2023-10-16', stream: true });
    expect(request.body).not.toHaveProperty('model');
    expect(anthropicAdapter.telemetryName(vertex)).toBe('gcp.vertex_ai');
    expect(() => anthropicAdapter.buildRequest(call({ model: '../../x' }), vertex)).toThrow(
      /not a model name/,
    );
  });
});

describe('anthropic response and stream parsers', () => {
  it('parses a message: thinking with signature, redacted thinking, text, parallel tool calls, usage with cache', () => {
    const result = anthropicAdapter.parseResponse(JSON.parse(fixture('message-redacted-tool.json')), call());
    expect(result).toEqual({
      id: 'msg_03',
      model: 'claude-sonnet-4-5-20250929',
      content: [
        { type: 'reasoning', text: 'Two cities.', signature: 'sig-1' },
        { type: 'reasoning', text: '', redacted: 'EmwKAhgBEgy3va3pzix' },
        { type: 'text', text: 'Checking both.' },
      ],
      toolCalls: [
        { id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { id: 'toolu_2', name: 'get_weather', arguments: '{"city":"Tokyo"}' },
      ],
      usage: {
        inputTokens: 420,
        outputTokens: 50,
        cacheReadTokens: 300,
        cacheWriteTokens: 20,
        reasoningTokens: 0,
      },
      finishReason: 'tool_calls',
      providerReason: 'tool_use',
    });
  });

  it('turns the structured-output tool call back into the answer text', () => {
    const result = anthropicAdapter.parseResponse(
      {
        id: 'm',
        content: [{ type: 'tool_use', id: 't', name: 'weather', input: { city: 'Paris' } }],
        stop_reason: 'tool_use',
      },
      call({ responseFormat: { type: 'json_schema', name: 'weather', schema: {} } }),
    );
    expect(result.content).toEqual([{ type: 'text', text: '{"city":"Paris"}' }]);
    expect(result.toolCalls).toEqual([]);
    expect(result.finishReason).toBe('stop');
  });

  it('streams the recorded wire example: tool ordinals count tool_use blocks only, usage merged and cumulative', async () => {
    const events = await collect(
      anthropicAdapter.parseStream(
        sseFrames(fixture('stream-thinking-text-tool.sse')),
        call({ stream: true }),
      ),
    );
    expect(events).toEqual([
      { type: 'response', id: 'msg_01XYZ', model: 'claude-sonnet-4-5-20250929' },
      {
        type: 'usage',
        usage: {
          inputTokens: 2272,
          outputTokens: 2,
          cacheReadTokens: 1800,
          cacheWriteTokens: 0,
          reasoningTokens: 0,
        },
      },
      { type: 'reasoning', text: 'The user wants the weather...', part: 0 },
      { type: 'reasoning', text: '', signature: 'EqQBCgIYAhIM...', part: 0 },
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_call_start', index: 0, id: 'toolu_01A', name: 'get_weather' },
      { type: 'tool_call_delta', index: 0, arguments: '{"city": "Par' },
      { type: 'tool_call_delta', index: 0, arguments: 'is"}' },
      { type: 'tool_call_end', index: 0 },
      { type: 'tool_call_start', index: 1, id: 'toolu_01B', name: 'get_weather' },
      { type: 'tool_call_delta', index: 1, arguments: '{"city": "Tokyo"}' },
      { type: 'tool_call_end', index: 1 },
      {
        type: 'usage',
        usage: {
          inputTokens: 2272,
          outputTokens: 89,
          cacheReadTokens: 1800,
          cacheWriteTokens: 0,
          reasoningTokens: 0,
        },
      },
      { type: 'finish', reason: 'tool_calls', providerReason: 'tool_use' },
    ]);
  });

  it('ends with a classified error on an in-stream error event, and on a stream cut before message_stop', async () => {
    const events = await collect(
      anthropicAdapter.parseStream(sseFrames(fixture('stream-overloaded.sse')), call()),
    );
    expect(events.at(-1)).toEqual({
      type: 'error',
      error: {
        class: 'provider_outage',
        message: 'Anthropic failed mid-stream: Overloaded',
        providerCode: 'overloaded_error',
      },
    });
    const cut = fixture('stream-thinking-text-tool.sse').split('event: message_delta')[0] ?? '';
    const truncated = await collect(anthropicAdapter.parseStream(sseFrames(cut), call()));
    expect(truncated.at(-1)).toMatchObject({ type: 'error', error: { class: 'provider_outage' } });
  });
});

describe('anthropic error classifier', () => {
  const body = (type: string, message: string) =>
    JSON.stringify({ type: 'error', error: { type, message }, request_id: 'req_1' });
  const cases: Array<[string, number, string, Record<string, string>, string]> = [
    [
      'prompt too long',
      400,
      body('invalid_request_error', 'prompt is too long: 208310 tokens > 200000 maximum'),
      {},
      'context_window_exceeded',
    ],
    [
      'input + max_tokens',
      400,
      body(
        'invalid_request_error',
        'input length and `max_tokens` exceed context limit: 197626 + 8192 > 200000, decrease input length or `max_tokens` and try again',
      ),
      {},
      'context_window_exceeded',
    ],
    ['bad key', 401, body('authentication_error', 'invalid x-api-key'), {}, 'auth_failed'],
    [
      'no permission',
      403,
      body('permission_error', 'Your API key does not have permission'),
      {},
      'auth_failed',
    ],
    [
      'rate limit',
      429,
      body('rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit'),
      { 'retry-after': '7' },
      'rate_limited',
    ],
    ['overloaded', 529, body('overloaded_error', 'Overloaded'), {}, 'provider_outage'],
    ['api error', 500, body('api_error', 'Internal server error'), {}, 'provider_outage'],
    ['unknown model', 404, body('not_found_error', 'model: claude-9'), {}, 'model_unavailable'],
    [
      'our bad request',
      400,
      body('invalid_request_error', 'messages.1.content.0.type: Expected `thinking`'),
      {},
      'bad_request_internal',
    ],
    [
      'credit',
      400,
      body('invalid_request_error', 'Your credit balance is too low to access the Anthropic API.'),
      {},
      'quota_exceeded',
    ],
    [
      'vertex 401',
      401,
      JSON.stringify({
        error: {
          code: 401,
          message: 'Request had invalid authentication credentials.',
          status: 'UNAUTHENTICATED',
        },
      }),
      {},
      'auth_failed',
    ],
    [
      'vertex quota',
      429,
      JSON.stringify({ error: { code: 429, message: 'Quota exceeded', status: 'RESOURCE_EXHAUSTED' } }),
      {},
      'rate_limited',
    ],
    ['html 502', 502, '<html>bad gateway: prompt is too long</html>', {}, 'provider_outage'],
  ];
  it.each(cases)('%s', (_name, status, text, headers, expected) => {
    const error = anthropicAdapter.classifyError(status, text, headers);
    expect(error.class).toBe(expected);
    expect(error.status).toBe(status);
    if (expected === 'rate_limited' && headers['retry-after']) expect(error.retryAfterMs).toBe(7000);
    if (expected === 'auth_failed') expect(error.message).not.toContain('x-api-key');
  });
});

describe('anthropic workspace proxy', () => {
  const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
  it('passes a Messages body through with the caller version and the gateway key', () => {
    const request = anthropicAdapter.buildProxyRequest?.(
      {
        method: 'POST',
        path: 'v1/messages',
        query: {},
        headers: {
          'content-type': 'application/json',
          'anthropic-version': '2026-10-21',
          'x-api-key': 'caller-token',
        },
        body: bytes({ model: 'm' }),
      },
      credentials(),
    );
    expect(request?.url).toBe('https://api.anthropic.com/v1/messages');
    expect(request?.headers).toEqual({
      'content-type': 'application/json',
      'x-api-key': 'sk-ant-test',
      'anthropic-version': '2026-10-21',
    });
  });

  it('translates for Vertex: model from the body into the URL, anthropic_version into the body', () => {
    const request = anthropicAdapter.buildProxyRequest?.(
      {
        method: 'POST',
        path: 'v1/messages',
        query: {},
        headers: {},
        body: bytes({ model: 'claude-x@1', max_tokens: 5, stream: true, messages: [] }),
      },
      credentials({
        platform: 'google_vertex_ai',
        access_token: 'ya29',
        base_url: 'https://aiplatform.googleapis.com/v1/projects/p/locations/global',
      }),
    );
    expect(request?.url).toBe(
      'https://aiplatform.googleapis.com/v1/projects/p/locations/global/publishers/anthropic/models/claude-x@1:streamRawPredict',
    );
    expect(JSON.parse(new TextDecoder().decode(request?.body))).toEqual({
      anthropic_version: 'vertex-2023-10-16',
      max_tokens: 5,
      stream: true,
      messages: [],
    });
    expect(request?.headers.authorization).toBe('Bearer ya29');
  });
});
