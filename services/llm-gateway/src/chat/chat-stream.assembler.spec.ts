import { describe, expect, it } from 'vitest';
import { ChatStreamAssembler } from './chat-stream.assembler.js';
import { ToolNameMap } from './tool-name.guard.js';
import { resultPieces } from '../providers/shared/result-pieces.js';
import type { ChatEvent } from '@flowmesh/contracts';
import type { ProviderStreamEvent } from '../providers/provider-adapter.js';

function run(pieces: ProviderStreamEvent[], names = new ToolNameMap([])): ChatEvent[] {
  const assembler = new ChatStreamAssembler(names, 'openai', 'gpt-4o-mini');
  return [...pieces.flatMap((piece) => assembler.push(piece)), ...assembler.end()];
}

describe('chat stream assembler', () => {
  it('orders tool calls by start, maps names back, finishes them at the end, then usage, finish and the message', () => {
    const names = new ToolNameMap(['weather.get', 'search']);
    const events = run(
      [
        { type: 'response', id: 'r1', model: 'gpt-4o-mini-2024-07-18' },
        { type: 'text', text: 'Let me ' },
        { type: 'text', text: 'check.' },
        { type: 'tool_call_start', index: 3, id: 'call_a', name: names.provider('weather.get') },
        { type: 'tool_call_start', index: 7, id: 'call_b', name: 'search' },
        { type: 'tool_call_delta', index: 7, arguments: '{"q":' },
        { type: 'tool_call_delta', index: 3, arguments: '{"city":"Paris"}' },
        { type: 'tool_call_delta', index: 7, arguments: '"x"}' },
        {
          type: 'usage',
          usage: {
            inputTokens: 1,
            outputTokens: 2,
            cacheReadTokens: 0,
            cacheWriteTokens: 0,
            reasoningTokens: 0,
          },
        },
        {
          type: 'usage',
          usage: {
            inputTokens: 10,
            outputTokens: 20,
            cacheReadTokens: 0,
            cacheWriteTokens: 0,
            reasoningTokens: 0,
          },
        },
        { type: 'finish', reason: 'tool_calls', providerReason: 'tool_calls' },
      ],
      names,
    );
    expect(events.map((event) => event.type)).toEqual([
      'text_delta',
      'text_delta',
      'tool_call_started',
      'tool_call_started',
      'tool_call_delta',
      'tool_call_delta',
      'tool_call_delta',
      'tool_call_finished',
      'tool_call_finished',
      'usage',
      'finish',
      'message',
    ]);
    expect(events[2]).toEqual({ type: 'tool_call_started', index: 0, id: 'call_a', name: 'weather.get' });
    expect(events[4]).toEqual({ type: 'tool_call_delta', index: 1, id: 'call_b', arguments: '{"q":' });
    expect(events.at(-1)).toEqual({
      type: 'message',
      message: {
        role: 'assistant',
        content: [{ type: 'text', text: 'Let me check.' }],
        toolCalls: [
          { id: 'call_a', name: 'weather.get', arguments: '{"city":"Paris"}' },
          { id: 'call_b', name: 'search', arguments: '{"q":"x"}' },
        ],
      },
      usage: {
        inputTokens: 10,
        outputTokens: 20,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        reasoningTokens: 0,
      },
      finishReason: 'tool_calls',
      provider: 'openai',
      model: 'gpt-4o-mini-2024-07-18',
      responseId: 'r1',
    });
  });

  it('keeps reasoning blocks apart with their signatures, and gives an argument-less call {}', () => {
    const events = run([
      { type: 'reasoning', text: 'first', part: 0 },
      { type: 'reasoning', text: '', signature: 'sig-1', part: 0 },
      { type: 'reasoning', text: '', redacted: 'opaque', part: 1 },
      { type: 'tool_call_start', index: 0, id: 't1', name: 'now', signature: 'g-sig' },
      { type: 'tool_call_end', index: 0 },
      { type: 'finish', reason: 'tool_calls' },
    ]);
    const message = events.at(-1);
    expect(message).toMatchObject({
      type: 'message',
      message: {
        content: [
          { type: 'reasoning', text: 'first', signature: 'sig-1' },
          { type: 'reasoning', text: '', redacted: 'opaque' },
        ],
        toolCalls: [{ id: 't1', name: 'now', arguments: '{}', signature: 'g-sig' }],
      },
    });
    expect(events).toContainEqual({
      type: 'tool_call_finished',
      index: 0,
      id: 't1',
      name: 'now',
      arguments: '{}',
      signature: 'g-sig',
    });
  });

  it('replays a whole (non-streamed) answer through the same path', () => {
    const events = run(
      resultPieces({
        id: 'r2',
        content: [{ type: 'text', text: 'Hello' }],
        toolCalls: [],
        finishReason: 'stop',
      }),
    );
    expect(events.map((event) => event.type)).toEqual(['text_delta', 'finish', 'message']);
    expect(events.at(-1)).toMatchObject({
      message: { role: 'assistant', content: [{ type: 'text', text: 'Hello' }] },
      model: 'gpt-4o-mini',
    });
  });

  it('throws a provider error piece as a classified error', () => {
    const assembler = new ChatStreamAssembler(new ToolNameMap([]), 'openai', 'm');
    expect(() =>
      assembler.push({ type: 'error', error: { class: 'provider_outage', message: 'gone' } }),
    ).toThrow('gone');
  });
});
