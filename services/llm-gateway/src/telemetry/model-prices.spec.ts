import { describe, expect, it } from 'vitest';
import { costUsd } from './model-prices.js';

describe('costUsd', () => {
  it('prices a listed model per million input and output tokens', () => {
    expect(costUsd('gpt-4o-mini', { inputTokens: 1_000_000, outputTokens: 1_000_000 })).toBeCloseTo(0.75);
  });

  it('takes the longest listed prefix of a dated name, not a shorter one', () => {
    expect(costUsd('gpt-4o-mini-2024-07-18', { inputTokens: 2_000_000, outputTokens: 0 })).toBeCloseTo(0.3);
    expect(costUsd('gpt-4o-2024-08-06', { inputTokens: 1_000_000, outputTokens: 0 })).toBeCloseTo(2.5);
  });

  it('has no cost for a model it does not know', () => {
    expect(costUsd('llama3.2', { inputTokens: 10, outputTokens: 10 })).toBeUndefined();
  });
});
