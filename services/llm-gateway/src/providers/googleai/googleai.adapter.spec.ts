import { readFileSync } from 'node:fs';
import { createParser } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import type { ChatCall, ProviderStreamEvent, StreamFrame } from '../provider-adapter.js';
import { sealCredentials } from '../provider-credentials.js';
import { buildGeminiBody } from './gemini-request.builder.js';
import { toGeminiSchema } from './gemini-schema.js';
import { googleAIAdapter } from './googleai.adapter.js';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

async function* sseFrames(text: string): AsyncIterable<StreamFrame> {
  const frames: StreamFrame[] = [];
  createParser({ onEvent: (event) => frames.push({ data: event.data }) }).feed(text);
  for (const frame of frames) yield await Promise.resolve(frame);
}

async function collect(events: AsyncIterable<ProviderStreamEvent>): Promise<ProviderStreamEvent[]> {
  const out: ProviderStreamEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

const credentials = sealCredentials({
  provider: 'googleai',
  api_key: 'AIza-test',
  platform: 'standard',
  enable_1m_context: false,
  custom_headers: {},
});

const call = (extra: Partial<ChatCall> = {}): ChatCall => ({
  model: 'gemini-2.5-flash',
  stream: false,
  messages: [{ role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] }],
  ...extra,
});

describe('gemini request builder', () => {
  it('builds the URL, key header, systemInstruction, tools, tool config and generation config', () => {
    const request = googleAIAdapter.buildRequest(
      call({
        model: 'models/gemini-2.5-flash',
        stream: true,
        system: 'You are terse.',
        tools: [
          {
            name: 'get_weather',
            description: 'Get weather',
            parameters: {
              type: 'object',
              properties: { city: { type: 'string' } },
              required: ['city'],
              additionalProperties: false,
            },
          },
          { name: 'now', parameters: { type: 'object', properties: {} } },
        ],
        toolChoice: { type: 'tool', name: 'get_weather' },
        temperature: 0.2,
        maxOutputTokens: 1024,
        reasoningEffort: 'low',
      }),
      credentials,
    );
    expect(request.url).toBe(
      'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    );
    expect(request.headers['x-goog-api-key']).toBe('AIza-test');
    expect(request.body).toEqual({
      systemInstruction: { parts: [{ text: 'You are terse.' }] },
      contents: [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }],
      tools: [
        {
          functionDeclarations: [
            {
              name: 'get_weather',
              description: 'Get weather',
              parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
            },
            { name: 'now' },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } },
      generationConfig: {
        temperature: 0.2,
        maxOutputTokens: 1024,
        thinkingConfig: { thinkingBudget: 1024, includeThoughts: true },
      },
    });
  });

  it('replays a tool round: signatures back on their parts, responses matched by name in one turn, images inline', () => {
    const body = buildGeminiBody(
      call({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Paris and Tokyo?' },
              { type: 'inline_data', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
            ],
          },
          {
            role: 'assistant',
            content: [
              { type: 'reasoning', text: 'summary of thoughts' },
              { type: 'text', text: 'Checking.' },
              { type: 'reasoning', text: '', signature: 'sig-text' },
            ],
            toolCalls: [
              { id: 'call_r_0', name: 'get_weather', arguments: '{"city":"Paris"}', signature: 'sig-call' },
              { id: 'call_r_1', name: 'get_weather', arguments: '{"city":"Tokyo"}' },
            ],
          },
          {
            role: 'tool',
            toolCallId: 'call_r_0',
            name: 'get_weather',
            content: [{ type: 'text', text: '{"temp":12}' }],
          },
          {
            role: 'tool',
            toolCallId: 'call_r_1',
            name: 'get_weather',
            content: [{ type: 'text', text: 'down' }],
            isError: true,
          },
          { role: 'summary', text: 'earlier: greetings' },
        ],
      }),
    );
    expect(body.contents).toEqual([
      {
        role: 'user',
        parts: [
          { text: 'Paris and Tokyo?' },
          { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
        ],
      },
      {
        role: 'model',
        parts: [
          { text: 'Checking.', thoughtSignature: 'sig-text' },
          { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'sig-call' },
          { functionCall: { name: 'get_weather', args: { city: 'Tokyo' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'get_weather', response: { result: { temp: 12 } } } },
          { functionResponse: { name: 'get_weather', response: { error: 'down' } } },
          { text: '[Summary of the earlier conversation]\nearlier: greetings' },
        ],
      },
    ]);
  });

  it('asks for JSON natively with a schema narrowed to what Gemini accepts', () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      additionalProperties: false,
      properties: {
        city: { type: 'string', format: 'email' },
        temp: { type: ['number', 'null'] },
        unit: { const: 'C' },
        when: { $ref: '#/$defs/when' },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['city', 'ghost'],
      $defs: { when: { type: 'string', format: 'date-time' } },
    };
    const body = buildGeminiBody(call({ responseFormat: { type: 'json_schema', name: 'weather', schema } }));
    expect(body.generationConfig).toEqual({
      responseMimeType: 'application/json',
      responseSchema: {
        type: 'object',
        properties: {
          city: { type: 'string' },
          temp: { type: 'number', nullable: true },
          unit: { type: 'string', enum: ['C'] },
          when: { type: 'string', format: 'date-time' },
          tags: { type: 'array', items: { type: 'string' } },
        },
        required: ['city'],
      },
    });
    expect(toGeminiSchema({ anyOf: [{ type: 'string' }, { type: 'null' }] })).toEqual({
      type: 'string',
      nullable: true,
    });
  });

  it('uses thinking levels for Gemini 3', () => {
    expect(
      buildGeminiBody(call({ model: 'gemini-3-pro-preview', reasoningEffort: 'high' })).generationConfig,
    ).toEqual({
      thinkingConfig: { thinkingLevel: 'high', includeThoughts: true },
    });
  });
});

describe('gemini response and stream parsers', () => {
  it('streams the recorded wire example: thoughts, parallel calls whole with ids and signature, usage, tool_calls', async () => {
    const events = await collect(
      googleAIAdapter.parseStream(
        sseFrames(fixture('stream-thought-parallel-calls.sse')),
        call({ stream: true }),
      ),
    );
    expect(events).toEqual([
      { type: 'response', id: 'r-abc', model: 'gemini-2.5-flash' },
      { type: 'reasoning', text: 'Thinking about weather…', part: 0 },
      {
        type: 'usage',
        usage: {
          inputTokens: 12,
          outputTokens: 0,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
          reasoningTokens: 0,
        },
      },
      {
        type: 'tool_call_start',
        index: 0,
        id: 'call_r-abc_0',
        name: 'get_weather',
        signature: 'CiQB4/H/Xt5t...',
      },
      { type: 'tool_call_delta', index: 0, arguments: '{"city":"Paris"}' },
      { type: 'tool_call_end', index: 0 },
      { type: 'tool_call_start', index: 1, id: 'call_r-abc_1', name: 'get_weather' },
      { type: 'tool_call_delta', index: 1, arguments: '{"city":"Tokyo"}' },
      { type: 'tool_call_end', index: 1 },
      {
        type: 'usage',
        usage: {
          inputTokens: 12,
          outputTokens: 33,
          cacheReadTokens: 4,
          cacheWriteTokens: 0,
          reasoningTokens: 25,
        },
      },
      { type: 'finish', reason: 'tool_calls', providerReason: 'STOP' },
    ]);
  });

  it('parses a whole response, keeping the signature Gemini put on a text part', () => {
    expect(
      googleAIAdapter.parseResponse(JSON.parse(fixture('response-text-signature.json')), call()),
    ).toEqual({
      id: 'r-1',
      model: 'gemini-2.5-pro',
      content: [
        { type: 'reasoning', text: 'Planning the answer.' },
        { type: 'text', text: '{"city":"Paris","temp":12}' },
        { type: 'reasoning', text: '', signature: 'sig-text' },
      ],
      toolCalls: [],
      usage: {
        inputTokens: 30,
        outputTokens: 17,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        reasoningTokens: 7,
      },
      finishReason: 'stop',
      providerReason: 'STOP',
    });
  });

  it('finishes a blocked prompt as content_filter, and errors on a cut stream or an error chunk', async () => {
    const blocked = await collect(
      googleAIAdapter.parseStream(
        sseFrames('data: {"promptFeedback":{"blockReason":"SAFETY"}}\r\n\r\n'),
        call(),
      ),
    );
    expect(blocked.at(-1)).toEqual({ type: 'finish', reason: 'content_filter', providerReason: 'SAFETY' });
    const cut = fixture('stream-thought-parallel-calls.sse').split('\r\n\r\n')[0] ?? '';
    expect(
      (await collect(googleAIAdapter.parseStream(sseFrames(`${cut}\r\n\r\n`), call()))).at(-1),
    ).toMatchObject({ type: 'error', error: { class: 'provider_outage' } });
    const failed = await collect(
      googleAIAdapter.parseStream(
        sseFrames(
          'data: {"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}\r\n\r\n',
        ),
        call(),
      ),
    );
    expect(failed).toEqual([
      {
        type: 'error',
        error: {
          class: 'provider_outage',
          message: 'Google AI failed mid-stream: The model is overloaded.',
          providerCode: 'UNAVAILABLE',
        },
      },
    ]);
    expect(
      googleAIAdapter.parseResponse(
        { candidates: [{ content: { parts: [{ text: 'x' }] }, finishReason: 'MAX_TOKENS' }] },
        call(),
      ).finishReason,
    ).toBe('length');
  });
});

describe('gemini error classifier', () => {
  const google = (code: number, status: string, message: string, details?: unknown[]) =>
    JSON.stringify({ error: { code, message, status, ...(details ? { details } : {}) } });
  const cases: Array<[string, number, string, string]> = [
    [
      'context',
      400,
      google(
        400,
        'INVALID_ARGUMENT',
        'The input token count (1196265) exceeds the maximum number of tokens allowed (1048576).',
      ),
      'context_window_exceeded',
    ],
    [
      'bad key',
      400,
      google(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [
        { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID' },
      ]),
      'auth_failed',
    ],
    [
      'no key',
      403,
      google(403, 'PERMISSION_DENIED', "Method doesn't allow unregistered callers"),
      'auth_failed',
    ],
    [
      'quota',
      429,
      google(429, 'RESOURCE_EXHAUSTED', 'You exceeded your current quota', [
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '20s' },
      ]),
      'rate_limited',
    ],
    [
      'unknown model',
      404,
      google(404, 'NOT_FOUND', 'models/gemini-9 is not found for API version v1beta'),
      'model_unavailable',
    ],
    [
      'overloaded',
      503,
      google(503, 'UNAVAILABLE', 'The model is overloaded. Please try again later.'),
      'provider_outage',
    ],
    [
      'location',
      400,
      google(400, 'FAILED_PRECONDITION', 'User location is not supported for the API use.'),
      'bad_request_user',
    ],
    [
      'our bad body',
      400,
      google(
        400,
        'INVALID_ARGUMENT',
        'Invalid JSON payload received. Unknown name "foo": Cannot find field.',
      ),
      'bad_request_internal',
    ],
  ];
  it.each(cases)('%s', (_name, status, body, expected) => {
    const error = googleAIAdapter.classifyError(status, body, {});
    expect(error.class).toBe(expected);
    if (expected === 'rate_limited') expect(error.retryAfterMs).toBe(20_000);
    if (expected === 'auth_failed') expect(error.message).not.toContain('API key not valid');
  });
});

describe('gemini embeddings', () => {
  it('batches every text in one batchEmbedContents call, with dimensions and the input type as taskType', () => {
    const request = googleAIAdapter.embeddings!.buildRequest(
      { model: 'text-embedding-004', input: ['a', 'b'], dimensions: 256, inputType: 'search_query' },
      credentials,
    );
    expect(request.url).toBe(
      'https://generativelanguage.googleapis.com/v1beta/models/text-embedding-004:batchEmbedContents',
    );
    expect(request.body).toEqual({
      requests: ['a', 'b'].map((text) => ({
        model: 'models/text-embedding-004',
        content: { parts: [{ text }] },
        outputDimensionality: 256,
        taskType: 'RETRIEVAL_QUERY',
      })),
    });
    const plain = googleAIAdapter.embeddings!.buildRequest(
      { model: 'text-embedding-004', input: ['a'] },
      credentials,
    );
    expect(plain.body).toEqual({
      requests: [{ model: 'models/text-embedding-004', content: { parts: [{ text: 'a' }] } }],
    });
    expect(
      googleAIAdapter.embeddings!.parseResponse(
        { embeddings: [{ values: [1, 2] }, { values: [3] }] },
        {
          model: 'text-embedding-004',
          input: ['a', 'b'],
        },
      ),
    ).toEqual({ embeddings: [[1, 2], [3]], model: 'text-embedding-004', inputTokens: 0 });
  });
});
