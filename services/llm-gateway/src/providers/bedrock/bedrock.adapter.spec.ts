import type { ConverseStreamOutput } from '@aws-sdk/client-bedrock-runtime';
import { describe, expect, it } from 'vitest';
import type { ChatCall, ProviderStreamEvent } from '../provider-adapter.js';
import { classifyBedrockError, classifyBedrockException } from './bedrock-error.classifier.js';
import { buildConverseInput } from './bedrock-request.builder.js';
import { parseConverseOutput } from './bedrock-response.parser.js';
import { parseConverseStream } from './bedrock-stream.parser.js';

const call = (extra: Partial<ChatCall> = {}): ChatCall => ({
  model: 'anthropic.claude-3-5-sonnet-20240620-v1:0',
  stream: true,
  messages: [{ role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] }],
  ...extra,
});

async function* from<T>(items: T[]): AsyncIterable<T> {
  for (const item of items) yield await Promise.resolve(item);
}

async function collect(events: AsyncIterable<ProviderStreamEvent>): Promise<ProviderStreamEvent[]> {
  const out: ProviderStreamEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

/** The decoded sequence the SDK yielded from the event-stream fake (reference §5), plus a second tool call. */
const recorded = [
  { messageStart: { role: 'assistant' } },
  { contentBlockDelta: { delta: { text: 'Let me check.' }, contentBlockIndex: 0 } },
  { contentBlockStop: { contentBlockIndex: 0 } },
  {
    contentBlockStart: {
      start: { toolUse: { toolUseId: 'tooluse_abc123', name: 'get_weather' } },
      contentBlockIndex: 1,
    },
  },
  { contentBlockDelta: { delta: { toolUse: { input: '{"location":' } }, contentBlockIndex: 1 } },
  { contentBlockDelta: { delta: { toolUse: { input: '"Paris"}' } }, contentBlockIndex: 1 } },
  { contentBlockStop: { contentBlockIndex: 1 } },
  {
    contentBlockStart: {
      start: { toolUse: { toolUseId: 'tooluse_def456', name: 'get_weather' } },
      contentBlockIndex: 2,
    },
  },
  { contentBlockDelta: { delta: { toolUse: { input: '{"location":"Tokyo"}' } }, contentBlockIndex: 2 } },
  { contentBlockStop: { contentBlockIndex: 2 } },
  { messageStop: { stopReason: 'tool_use' } },
  {
    metadata: {
      usage: {
        inputTokens: 412,
        outputTokens: 38,
        totalTokens: 550,
        cacheReadInputTokens: 100,
        cacheWriteInputTokens: 0,
      },
      metrics: { latencyMs: 812 },
    },
  },
] as ConverseStreamOutput[];

describe('bedrock stream parser', () => {
  it('numbers tool calls by tool-use blocks only: a stopped text block advances nothing', async () => {
    const events = await collect(parseConverseStream(from(recorded), call(), 'req-1'));
    expect(events).toEqual([
      { type: 'response', id: 'req-1', model: 'anthropic.claude-3-5-sonnet-20240620-v1:0' },
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_call_start', index: 0, id: 'tooluse_abc123', name: 'get_weather' },
      { type: 'tool_call_delta', index: 0, arguments: '{"location":' },
      { type: 'tool_call_delta', index: 0, arguments: '"Paris"}' },
      { type: 'tool_call_end', index: 0 },
      { type: 'tool_call_start', index: 1, id: 'tooluse_def456', name: 'get_weather' },
      { type: 'tool_call_delta', index: 1, arguments: '{"location":"Tokyo"}' },
      { type: 'tool_call_end', index: 1 },
      {
        type: 'usage',
        usage: {
          inputTokens: 512,
          outputTokens: 38,
          cacheReadTokens: 100,
          cacheWriteTokens: 0,
          reasoningTokens: 0,
        },
      },
      { type: 'finish', reason: 'tool_calls', providerReason: 'tool_use' },
    ]);
  });

  it('streams reasoning with its signature and redacted content as one part per block', async () => {
    const events = await collect(
      parseConverseStream(
        from([
          { messageStart: { role: 'assistant' } },
          { contentBlockDelta: { delta: { reasoningContent: { text: 'Hmm.' } }, contentBlockIndex: 0 } },
          {
            contentBlockDelta: { delta: { reasoningContent: { signature: 'sig-b' } }, contentBlockIndex: 0 },
          },
          { contentBlockStop: { contentBlockIndex: 0 } },
          {
            contentBlockDelta: {
              delta: { reasoningContent: { redactedContent: new Uint8Array([1, 2, 3]) } },
              contentBlockIndex: 1,
            },
          },
          { contentBlockStop: { contentBlockIndex: 1 } },
          { contentBlockDelta: { delta: { text: 'Sunny.' }, contentBlockIndex: 2 } },
          { contentBlockStop: { contentBlockIndex: 2 } },
          { messageStop: { stopReason: 'end_turn' } },
        ] as ConverseStreamOutput[]),
        call(),
      ),
    );
    expect(events.slice(1)).toEqual([
      { type: 'reasoning', text: 'Hmm.', part: 0 },
      { type: 'reasoning', text: '', signature: 'sig-b', part: 0 },
      { type: 'reasoning', text: '', redacted: 'AQID', part: 1 },
      { type: 'text', text: 'Sunny.' },
      { type: 'finish', reason: 'stop', providerReason: 'end_turn' },
    ]);
  });

  it('streams the structured-output tool input as the answer text', async () => {
    const events = await collect(
      parseConverseStream(
        from([
          {
            contentBlockStart: {
              start: { toolUse: { toolUseId: 't', name: 'weather' } },
              contentBlockIndex: 0,
            },
          },
          { contentBlockDelta: { delta: { toolUse: { input: '{"city":"Paris"}' } }, contentBlockIndex: 0 } },
          { contentBlockStop: { contentBlockIndex: 0 } },
          { messageStop: { stopReason: 'tool_use' } },
        ] as ConverseStreamOutput[]),
        call({ responseFormat: { type: 'json_schema', name: 'weather', schema: {} } }),
      ),
    );
    expect(events.slice(1)).toEqual([
      { type: 'text', text: '{"city":"Paris"}' },
      { type: 'finish', reason: 'stop', providerReason: 'tool_use' },
    ]);
  });

  it('ends with an error when the stream stops before messageStop or carries an exception member', async () => {
    const cut = await collect(parseConverseStream(from(recorded.slice(0, 4)), call()));
    expect(cut.at(-1)).toMatchObject({ type: 'error', error: { class: 'provider_outage' } });
    const throttled = await collect(
      parseConverseStream(
        from([
          { messageStart: { role: 'assistant' } },
          { throttlingException: { message: 'Too many requests' } },
        ] as ConverseStreamOutput[]),
        call(),
      ),
    );
    expect(throttled.at(-1)).toMatchObject({
      type: 'error',
      error: { class: 'rate_limited', providerCode: 'ThrottlingException' },
    });
  });
});

describe('bedrock request builder', () => {
  it('builds system with a cache point, inference config, tool config and thinking for Claude', () => {
    const input = buildConverseInput(
      call({
        system: [{ text: 'You are terse.', cache: {} }],
        tools: [
          {
            name: 'get_weather',
            description: 'Get weather',
            parameters: { type: 'object', properties: { city: { type: 'string' } } },
          },
        ],
        toolChoice: 'auto',
        maxOutputTokens: 4096,
        temperature: 0.2,
        stop: ['END'],
      }),
    );
    expect(input).toEqual({
      modelId: 'anthropic.claude-3-5-sonnet-20240620-v1:0',
      messages: [{ role: 'user', content: [{ text: 'Weather in Paris?' }] }],
      system: [{ text: 'You are terse.' }, { cachePoint: { type: 'default' } }],
      inferenceConfig: { maxTokens: 4096, temperature: 0.2, stopSequences: ['END'] },
      toolConfig: {
        tools: [
          {
            toolSpec: {
              name: 'get_weather',
              description: 'Get weather',
              inputSchema: { json: { type: 'object', properties: { city: { type: 'string' } } } },
            },
          },
        ],
        toolChoice: { auto: {} },
      },
    });
    const thinking = buildConverseInput(call({ reasoningEffort: 'medium', temperature: 0.2 }));
    expect(thinking.additionalModelRequestFields).toEqual({
      thinking: { type: 'enabled', budget_tokens: 8192 },
    });
    expect(thinking.inferenceConfig).toEqual({ maxTokens: 16384 });
  });

  it('replays a tool round: reasoning first, tool results opening the next user turn, images as bytes, cache points kept', () => {
    const input = buildConverseInput(
      call({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Paris?' },
              { type: 'inline_data', mediaType: 'image/png', data: 'AQID' },
            ],
          },
          {
            role: 'assistant',
            content: [
              { type: 'reasoning', text: 'Think.', signature: 'sig' },
              { type: 'reasoning', text: '', redacted: 'AQID' },
              { type: 'text', text: 'Checking.' },
            ],
            toolCalls: [{ id: 'tooluse_1', name: 'get_weather', arguments: '{"city":"Paris"}' }],
          },
          {
            role: 'tool',
            toolCallId: 'tooluse_1',
            name: 'get_weather',
            content: [{ type: 'text', text: 'rainy' }],
            cache: {},
          },
          {
            role: 'user',
            content: [
              { type: 'inline_data', mediaType: 'application/pdf', data: 'JVBE', filename: 'q3 report.pdf' },
            ],
          },
        ],
      }),
    );
    expect(input.messages).toEqual([
      {
        role: 'user',
        content: [
          { text: 'Paris?' },
          { image: { format: 'png', source: { bytes: new Uint8Array([1, 2, 3]) } } },
        ],
      },
      {
        role: 'assistant',
        content: [
          { reasoningContent: { reasoningText: { text: 'Think.', signature: 'sig' } } },
          { reasoningContent: { redactedContent: new Uint8Array([1, 2, 3]) } },
          { text: 'Checking.' },
          { toolUse: { toolUseId: 'tooluse_1', name: 'get_weather', input: { city: 'Paris' } } },
        ],
      },
      {
        role: 'user',
        content: [
          { toolResult: { toolUseId: 'tooluse_1', content: [{ text: 'rainy' }], status: 'success' } },
          { cachePoint: { type: 'default' } },
          {
            document: {
              format: 'pdf',
              name: 'q3 report',
              source: { bytes: new Uint8Array(Buffer.from('JVBE', 'base64')) },
            },
          },
        ],
      },
    ]);
    // Tool blocks in the history need a toolConfig even when this call declares no tools.
    expect(input.toolConfig).toEqual({
      tools: [{ toolSpec: { name: 'get_weather', inputSchema: { json: { type: 'object' } } } }],
    });
  });

  it('forces the structured-output tool and reads it back as text', () => {
    const input = buildConverseInput(
      call({ responseFormat: { type: 'json_schema', name: 'weather', schema: { type: 'object' } } }),
    );
    expect(input.toolConfig?.toolChoice).toEqual({ tool: { name: 'weather' } });
    const result = parseConverseOutput(
      {
        output: {
          message: {
            role: 'assistant',
            content: [{ toolUse: { toolUseId: 't', name: 'weather', input: { city: 'Paris' } } }],
          },
        },
        stopReason: 'tool_use',
        usage: { inputTokens: 5, outputTokens: 2, totalTokens: 7 },
      },
      call({ responseFormat: { type: 'json_schema', name: 'weather', schema: {} } }),
    );
    expect(result).toMatchObject({
      content: [{ type: 'text', text: '{"city":"Paris"}' }],
      toolCalls: [],
      finishReason: 'stop',
    });
  });
});

describe('bedrock error classifier', () => {
  const wire = (type: string, message: string, status = 400) =>
    classifyBedrockError(status, JSON.stringify({ message }), {
      'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
    });
  it.each([
    ['ValidationException', 'Input is too long for requested model.', 400, 'context_window_exceeded'],
    [
      'ValidationException',
      'The model returned the following errors: prompt is too long: 210000 tokens > 200000 maximum',
      400,
      'context_window_exceeded',
    ],
    ['ValidationException', 'The provided model identifier is invalid.', 400, 'model_unavailable'],
    [
      'ValidationException',
      'Expected toolResult blocks at messages.2.content for the following Ids: t1',
      400,
      'bad_request_internal',
    ],
    ['ThrottlingException', 'Too many requests, please wait before trying again.', 429, 'rate_limited'],
    [
      'AccessDeniedException',
      "You don't have access to the model with the specified model ID.",
      403,
      'model_unavailable',
    ],
    [
      'UnrecognizedClientException',
      'The security token included in the request is invalid.',
      403,
      'auth_failed',
    ],
    ['ResourceNotFoundException', 'Model not found', 404, 'model_unavailable'],
    ['ServiceUnavailableException', 'Service unavailable', 503, 'provider_outage'],
    ['ModelErrorException', 'The model failed', 424, 'provider_outage'],
    ['ServiceQuotaExceededException', 'quota', 400, 'quota_exceeded'],
  ])('%s: %s', (type, message, status, expected) => {
    expect(wire(type, message, status).class).toBe(expected);
  });

  it('classifies SDK exceptions by name and status', () => {
    const error = Object.assign(new Error('Input is too long for requested model.'), {
      name: 'ValidationException',
      $fault: 'client',
      $metadata: { httpStatusCode: 400 },
    });
    expect(classifyBedrockException(error)).toMatchObject({
      class: 'context_window_exceeded',
      status: 400,
      providerCode: 'ValidationException',
    });
    expect(
      classifyBedrockException(
        Object.assign(new Error('bad key'), {
          name: 'UnrecognizedClientException',
          $metadata: { httpStatusCode: 403 },
        }),
      ).message,
    ).not.toContain('bad key');
  });
});
