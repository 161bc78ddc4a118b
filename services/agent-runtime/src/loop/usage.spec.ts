import { describe, expect, it } from 'vitest';
import { addUsage, stepUsage, type TotalUsage } from './usage.js';

describe('step usage', () => {
  it("sums every call and names the fields as Windmill's TokenUsage", () => {
    const total: TotalUsage = { inputTokens: 0, outputTokens: 0 };
    addUsage(total, {
      inputTokens: 100,
      outputTokens: 7,
      cacheReadTokens: 80,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
    });
    addUsage(total, {
      inputTokens: 20,
      outputTokens: 3,
      cacheReadTokens: 0,
      cacheWriteTokens: 15,
      reasoningTokens: 2,
    });
    addUsage(total, undefined);
    expect(stepUsage(total)).toEqual({
      input_tokens: 120,
      output_tokens: 10,
      total_tokens: 130,
      cache_read_input_tokens: 80,
      cache_write_input_tokens: 15,
    });
  });

  it('leaves out the cache fields when no call used a cache, and reads an old checkpoint', () => {
    expect(stepUsage({ inputTokens: 5, outputTokens: 2 })).toEqual({
      input_tokens: 5,
      output_tokens: 2,
      total_tokens: 7,
    });
    expect(stepUsage(undefined)).toEqual({ input_tokens: 0, output_tokens: 0, total_tokens: 0 });
  });
});
