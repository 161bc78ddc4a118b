import { describe, expect, it } from 'vitest';
import { OpenAIChunkEncoder } from './openai-chunk.encoder.js';

const frames = (text: string) =>
  text
    .split('\n\n')
    .filter(Boolean)
    .map((frame) => frame.replace(/^data: /, ''))
    .map((data) => (data === '[DONE]' ? data : (JSON.parse(data) as Record<string, unknown>)));

describe('OpenAIChunkEncoder', () => {
  it('encodes a tool-call answer as the OpenAI SDK expects: role once, id and name on the first fragment, usage chunk, [DONE]', () => {
    const encoder = new OpenAIChunkEncoder('chatcmpl-1', 'claude', true, 1700000000);
    const wire = [
      encoder.encode({
        type: 'started',
        provider: 'anthropic',
        resource: 'f/ai/c',
        model: 'claude',
        fallbackIndex: 0,
      }),
      encoder.encode({ type: 'text_delta', text: 'Checking.' }),
      encoder.encode({ type: 'tool_call_started', index: 0, id: 'toolu_1', name: 'get_weather' }),
      encoder.encode({ type: 'tool_call_delta', index: 0, id: 'toolu_1', arguments: '{"city":' }),
      encoder.encode({
        type: 'tool_call_finished',
        index: 0,
        id: 'toolu_1',
        name: 'get_weather',
        arguments: '{"city":"Paris"}',
      }),
      encoder.encode({
        type: 'usage',
        usage: {
          inputTokens: 10,
          outputTokens: 4,
          cacheReadTokens: 2,
          cacheWriteTokens: 0,
          reasoningTokens: 0,
        },
      }),
      encoder.encode({ type: 'finish', reason: 'tool_calls' }),
      encoder.encode({
        type: 'message',
        message: { role: 'assistant', content: [{ type: 'text', text: 'Checking.' }] },
        finishReason: 'tool_calls',
        provider: 'anthropic',
        model: 'claude',
      }),
    ].join('');
    const parsed = frames(wire);
    expect(
      parsed.map((frame) => (frame === '[DONE]' ? frame : (frame as { choices: unknown[] }).choices)),
    ).toEqual([
      [{ index: 0, delta: { role: 'assistant', content: 'Checking.' }, logprobs: null, finish_reason: null }],
      [
        {
          index: 0,
          delta: {
            tool_calls: [
              { index: 0, id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '' } },
            ],
          },
          logprobs: null,
          finish_reason: null,
        },
      ],
      [
        {
          index: 0,
          delta: { tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] },
          logprobs: null,
          finish_reason: null,
        },
      ],
      // The rest of a call the provider finished without streaming it all.
      [
        {
          index: 0,
          delta: { tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] },
          logprobs: null,
          finish_reason: null,
        },
      ],
      [{ index: 0, delta: {}, logprobs: null, finish_reason: 'tool_calls' }],
      [],
      '[DONE]',
    ]);
    expect(parsed[0]).toMatchObject({
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 1700000000,
      model: 'claude',
    });
    expect(parsed[5]).toMatchObject({
      usage: {
        prompt_tokens: 10,
        completion_tokens: 4,
        total_tokens: 14,
        prompt_tokens_details: { cached_tokens: 2 },
      },
    });
  });

  it('leaves the usage chunk out unless asked, and ends a failed stream with an error frame', () => {
    const encoder = new OpenAIChunkEncoder('chatcmpl-2', 'm', false);
    encoder.encode({
      type: 'usage',
      usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
    });
    expect(
      encoder.encode({
        type: 'message',
        message: { role: 'assistant', content: [], toolCalls: [{ id: 'a', name: 'b', arguments: '{}' }] },
        finishReason: 'stop',
        provider: 'openai',
        model: 'm',
      }),
    ).toBe('data: [DONE]\n\n');
    expect(
      frames(encoder.encode({ type: 'error', error: { class: 'rate_limited', message: 'slow down' } })),
    ).toEqual([
      {
        error: {
          message: 'slow down',
          type: 'rate_limit_error',
          param: null,
          code: 'rate_limit_exceeded',
          fault: 'internal',
        },
      },
    ]);
  });
});
