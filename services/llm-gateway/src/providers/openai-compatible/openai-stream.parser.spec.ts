import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ProviderStreamEvent } from '../provider-adapter.js';
import { sseFrames } from '../shared/sse-frames.js';
import { customaiAdapter } from '../customai/customai.adapter.js';
import { openaiAdapter } from '../openai/openai.adapter.js';

const call = {
  model: 'gpt-4o-mini',
  messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'hi' }] }],
  stream: true,
};

/** The fixture's bytes, cut at awkward places (inside JSON, inside a UTF-8 character). */
async function* bytes(name: string, cut = 37): AsyncIterable<Uint8Array> {
  const all = readFileSync(new URL(`./fixtures/${name}`, import.meta.url));
  const pieces: Uint8Array[] = [];
  for (let at = 0; at < all.length; at += cut) pieces.push(all.subarray(at, at + cut));
  yield* asAsync(pieces);
}

function asAsync<T>(items: Iterable<T>): AsyncIterable<T> {
  return Readable.from(items, { objectMode: true }) as AsyncIterable<T>;
}

async function pieces(name: string, adapter = openaiAdapter): Promise<ProviderStreamEvent[]> {
  if (adapter.transport !== 'http') throw new Error('http adapter expected');
  const out: ProviderStreamEvent[] = [];
  for await (const piece of adapter.parseStream(sseFrames(bytes(name)), call)) out.push(piece);
  return out;
}

describe('OpenAI-compatible stream parser (recorded streams)', () => {
  it('reads parallel tool calls by their index, ids and names from the first fragment, then the usage chunk', async () => {
    expect(await pieces('parallel-tool-calls.sse.txt')).toEqual([
      { type: 'response', id: 'chatcmpl-A1', model: 'gpt-4o-mini-2024-07-18' },
      { type: 'tool_call_start', index: 0, id: 'call_abc', name: 'get_weather' },
      { type: 'tool_call_delta', index: 0, arguments: '{"ci' },
      { type: 'tool_call_delta', index: 0, arguments: 'ty": "Paris"}' },
      { type: 'tool_call_start', index: 1, id: 'call_def', name: 'get_weather' },
      { type: 'tool_call_delta', index: 1, arguments: '{"city": "Tokyo"}' },
      {
        type: 'usage',
        usage: {
          inputTokens: 82,
          outputTokens: 41,
          cacheReadTokens: 64,
          cacheWriteTokens: 0,
          reasoningTokens: 0,
        },
      },
      { type: 'finish', reason: 'tool_calls', providerReason: 'tool_calls' },
    ]);
  });

  it('reads DeepSeek reasoning_content as reasoning and usage on the last chunk with choices', async () => {
    const out = await pieces('deepseek-reasoner.sse.txt', customaiAdapter);
    expect(
      out
        .filter((piece) => piece.type === 'reasoning')
        .map((piece) => piece.type === 'reasoning' && piece.text),
    ).toEqual(['Two plus two', ' is four.']);
    expect(out).toContainEqual({ type: 'text', text: '4' });
    expect(out).toContainEqual({
      type: 'usage',
      usage: {
        inputTokens: 12,
        outputTokens: 30,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        reasoningTokens: 25,
      },
    });
    expect(out.at(-1)).toEqual({ type: 'finish', reason: 'stop', providerReason: 'stop' });
  });

  it("tolerates Azure's empty-choices filter chunks, CRLF frames and a character split across reads", async () => {
    const out = await pieces('azure-filter-results.sse.txt');
    expect(out.filter((piece) => piece.type === 'text')).toEqual([{ type: 'text', text: 'Héllo' }]);
    expect(out).toContainEqual({
      type: 'usage',
      usage: { inputTokens: 9, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
    });
  });

  it("reads Groq's usage under x_groq", async () => {
    const out = await pieces('groq-x-groq-usage.sse.txt');
    expect(out).toContainEqual({
      type: 'usage',
      usage: { inputTokens: 7, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
    });
  });

  it('turns a mid-stream error frame into a classified error, and a cut-off stream into an outage', async () => {
    if (openaiAdapter.transport !== 'http') throw new Error('http adapter expected');
    const frames = () =>
      asAsync([
        { data: '{"id":"x","model":"m","choices":[{"index":0,"delta":{"content":"a"}}]}' },
        {
          data: '{"error":{"message":"This model\'s maximum context length is 8192 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}',
        },
      ]);
    const failed: ProviderStreamEvent[] = [];
    for await (const piece of openaiAdapter.parseStream(frames(), call)) failed.push(piece);
    expect(failed.at(-1)).toMatchObject({
      type: 'error',
      error: { class: 'context_window_exceeded', providerCode: 'context_length_exceeded' },
    });

    const cut = () =>
      asAsync([{ data: '{"id":"x","model":"m","choices":[{"index":0,"delta":{"content":"a"}}]}' }]);
    const truncated: ProviderStreamEvent[] = [];
    for await (const piece of openaiAdapter.parseStream(cut(), call)) truncated.push(piece);
    expect(truncated.at(-1)).toMatchObject({ type: 'error', error: { class: 'provider_outage' } });
  });
});
