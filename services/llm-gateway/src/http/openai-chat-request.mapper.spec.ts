import { MeshError } from '@flowmesh/contracts';
import { describe, expect, it } from 'vitest';
import { OpenAIChatRequestSchema } from './openai-chat-request.schema.js';
import { mapOpenAIChatRequest } from './openai-chat-request.mapper.js';

const map = (body: unknown) => mapOpenAIChatRequest(OpenAIChatRequestSchema.parse(body));

describe('mapOpenAIChatRequest', () => {
  it('maps a tool round trip: system and developer into the system prompt, tool results named after their call', () => {
    const mapped = map({
      model: 'claude-sonnet-4-5',
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: 'Be terse.' },
        { role: 'developer', content: [{ type: 'text', text: 'Use tools.' }] },
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'rainy, 12C' },
      ],
      tools: [
        { type: 'function', function: { name: 'get_weather', parameters: { type: 'object' }, strict: true } },
      ],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      parallel_tool_calls: false,
      max_completion_tokens: 256,
      temperature: 0.2,
      stop: 'END',
      reasoning_effort: 'low',
    });
    expect(mapped).toEqual({
      model: 'claude-sonnet-4-5',
      stream: true,
      includeUsage: true,
      mediaParam: expect.any(Function) as unknown,
      parameters: {
        system: 'Be terse.\n\nUse tools.',
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
          {
            role: 'assistant',
            content: [],
            toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }],
          },
          {
            role: 'tool',
            toolCallId: 'call_1',
            name: 'get_weather',
            content: [{ type: 'text', text: 'rainy, 12C' }],
          },
        ],
        tools: [{ name: 'get_weather', parameters: { type: 'object' }, strict: true }],
        toolChoice: { type: 'tool', name: 'get_weather' },
        parallelToolCalls: false,
        maxOutputTokens: 256,
        temperature: 0.2,
        stop: ['END'],
        reasoningEffort: 'low',
        stream: true,
      },
    });
  });

  it('takes images and PDFs as data URLs and structured output as a JSON schema', () => {
    const mapped = map({
      model: 'gemini-2.5-flash',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'file', file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' } },
          ],
        },
      ],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'answer', schema: { type: 'object' }, strict: true },
      },
    });
    expect(mapped.parameters.messages[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'What is this?' },
        { type: 'inline_data', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
        { type: 'inline_data', mediaType: 'application/pdf', data: 'JVBERi0=', filename: 'a.pdf' },
      ],
    });
    expect(mapped.parameters.responseFormat).toEqual({
      type: 'json_schema',
      name: 'answer',
      schema: { type: 'object' },
      strict: true,
    });
    expect(mapped.stream).toBe(false);
  });

  it('turns http(s) images and files into url parts, each named by its OpenAI field', () => {
    const mapped = map({
      model: 'claude-sonnet-4-5',
      messages: [
        { role: 'developer', content: 'Describe.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'These:' },
            { type: 'image_url', image_url: { url: 'https://example.com/a.png', detail: 'high' } },
            { type: 'file', file: { filename: 'r.pdf', file_data: 'http://example.com/r.pdf' } },
          ],
        },
      ],
    });
    expect(mapped.parameters.messages[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'These:' },
        { type: 'url', url: 'https://example.com/a.png', mediaType: 'image/*' },
        { type: 'url', url: 'http://example.com/r.pdf', filename: 'r.pdf' },
      ],
    });
    // The normalized message 0 is the caller's message 1 (the developer message became the system prompt).
    expect(mapped.mediaParam(0, 1)).toBe('messages[1].content[1].image_url.url');
    expect(mapped.mediaParam(0, 2)).toBe('messages[1].content[2].file.file_data');
  });

  it('refuses what it cannot carry, naming the field', () => {
    const refusal = (body: unknown) => {
      try {
        map(body);
      } catch (error) {
        return error instanceof MeshError ? [error.code, error.message] : error;
      }
      return undefined;
    };
    expect(refusal({ model: 'm', messages: [{ role: 'tool', tool_call_id: 'nope', content: 'x' }] })).toEqual(
      ['VALIDATION_FAILED', 'messages[0].tool_call_id answers no earlier tool call ("nope")'],
    );
    expect(
      refusal({
        model: 'm',
        messages: [
          { role: 'user', content: [{ type: 'image_url', image_url: { url: 'ftp://example.com/a.png' } }] },
        ],
      }),
    ).toEqual([
      'VALIDATION_FAILED',
      'messages[0].content[0].image_url.url must be a base64 data: URL or an http(s) URL',
    ]);
    expect(
      refusal({
        model: 'm',
        messages: [
          { role: 'system', content: 'be brief' },
          {
            role: 'user',
            content: [{ type: 'image_url', image_url: { url: 'https://example.com/a b.png' } }],
          },
        ],
      }),
    ).toEqual(['VALIDATION_FAILED', 'messages[1].content[0].image_url.url must be an http: or https: URL']);
    expect(
      refusal({ model: 'm', messages: [{ role: 'user', content: 'hi' }], reasoning_effort: 'extreme' })?.[0],
    ).toBe('VALIDATION_FAILED');
  });
});
