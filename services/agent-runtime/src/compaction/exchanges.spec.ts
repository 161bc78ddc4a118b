import type { ChatMessage } from '@flowmesh/contracts';
import { assistantCalls, assistantSays, toolResult, userSays } from '@flowmesh/testing';
import { describe, expect, it } from 'vitest';
import { ATTACHMENT_TOKENS, contextBudget, estimateMessages, estimateTokens } from './context-budget.js';
import { exchangesOf, keptFrom } from './exchanges.js';
import { contextWindowOf, DEFAULT_CONTEXT_WINDOW, outputLimitOf } from './model-context-windows.js';

const user = userSays;
const says = assistantSays;
const calls = (id: string) => assistantCalls(id, 'add');
const result = (id: string, text = 'ok') => toolResult(id, text, 'add');

describe('compaction: exchanges', () => {
  it('keeps a prompt with its first answer, a call with its results, and cuts later tool rounds apart', () => {
    const messages = [
      { role: 'summary', text: 'earlier' } as ChatMessage,
      user('q1'),
      calls('a'),
      result('a'),
      calls('b'),
      result('b'),
      says('done'),
      user('q2'),
      says('a2'),
    ];
    expect(exchangesOf(messages).map((exchange) => exchange.length)).toEqual([1, 3, 2, 1, 2]);
  });

  it('keeps the newest exchange whatever its size, and older ones while they fit', () => {
    const big = 'x'.repeat(4_000); // about 1 000 tokens
    const exchanges = exchangesOf([user(big), says('a'), user(big), says('b'), user('small'), says('c')]);
    expect(keptFrom(exchanges, 0)).toBe(2);
    expect(keptFrom(exchanges, 1_100)).toBe(1);
    expect(keptFrom(exchanges, 10_000)).toBe(0);
    expect(keptFrom(exchangesOf([user(big)]), 0)).toBe(0);
  });
});

describe('compaction: budget', () => {
  it('reserves the larger of 20 % of the window and the output cap, and retains 20 000 tokens at most', () => {
    expect(contextBudget(128_000)).toEqual({
      window: 128_000,
      reserve: 25_600,
      input: 102_400,
      retain: 20_000,
    });
    expect(contextBudget(10_000, 4_000)).toEqual({
      window: 10_000,
      reserve: 4_000,
      input: 6_000,
      retain: 3_000,
    });
  });

  it('estimates a token per 4 bytes of JSON', () => {
    expect(estimateTokens('x'.repeat(398))).toBe(100);
  });

  it('counts an attachment at its nominal allowance, not at the size of its descriptor', () => {
    const photo = { type: 'attachment' as const, object: { key: 'u/ann/photo.png' }, mediaType: 'image/png' };
    const withPhoto: ChatMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'what is this?' }, photo] },
    ];
    const fromTool: ChatMessage[] = [
      { role: 'tool', toolCallId: 'a', name: 'shot', content: [photo, photo] },
    ];
    expect(estimateMessages(withPhoto)).toBe(estimateTokens(withPhoto) + ATTACHMENT_TOKENS);
    expect(estimateMessages(fromTool)).toBe(estimateTokens(fromTool) + 2 * ATTACHMENT_TOKENS);
    // The kept exchanges are sized the same way: a photo alone outweighs a retain of 1 000.
    const exchanges = exchangesOf([...withPhoto, says('a cat'), user('and now?'), says('still a cat')]);
    expect(keptFrom(exchanges, 1_000)).toBe(1);
  });

  it('looks a model up by its longest known prefix, the step overriding, 128 000 for the unknown', () => {
    expect(contextWindowOf('gpt-4o-mini-2024-07-18')).toBe(128_000);
    expect(contextWindowOf('gpt-4.1-mini')).toBe(1_047_576);
    expect(contextWindowOf('us.anthropic.claude-sonnet-4-5-20250929-v1:0')).toBe(200_000);
    expect(contextWindowOf('models/gemini-2.5-pro')).toBe(1_048_576);
    expect(contextWindowOf('my-finetune')).toBe(DEFAULT_CONTEXT_WINDOW);
    expect(contextWindowOf('gpt-4o', 32_000)).toBe(32_000);
  });

  it("knows a model's largest answer by the same prefixes, nothing for the unknown", () => {
    expect(outputLimitOf('gpt-4o-mini')).toBe(16_384);
    expect(outputLimitOf('us.anthropic.claude-3-5-haiku-20241022-v1:0')).toBe(8_192);
    expect(outputLimitOf('claude-sonnet-4-5')).toBe(64_000);
    expect(outputLimitOf('models/gemini-2.5-flash')).toBe(65_536);
    expect(outputLimitOf('my-finetune')).toBeUndefined();
  });
});
