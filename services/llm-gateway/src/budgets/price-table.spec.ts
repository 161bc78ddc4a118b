import { describe, expect, it } from 'vitest';
import { PriceTable } from './price-table.js';

const MILLION = { inputTokens: 1_000_000, outputTokens: 1_000_000 };

describe('PriceTable', () => {
  const defaults = new PriceTable();

  it('prices a listed model per million input and output tokens', () => {
    expect(defaults.costUsd('openai', 'gpt-4o-mini', MILLION)).toBeCloseTo(0.75);
  });

  it('takes the longest listed prefix of a dated name, not a shorter one', () => {
    expect(
      defaults.costUsd('openai', 'gpt-4o-mini-2024-07-18', { inputTokens: 2_000_000, outputTokens: 0 }),
    ).toBeCloseTo(0.3);
    expect(
      defaults.costUsd('openai', 'gpt-4o-2024-08-06', { inputTokens: 1_000_000, outputTokens: 0 }),
    ).toBeCloseTo(2.5);
  });

  it('has no cost for a model it does not know', () => {
    expect(defaults.costUsd('openai', 'llama3.2', { inputTokens: 10, outputTokens: 10 })).toBeUndefined();
  });

  it("takes the operator's price over the default, and a provider's own over the model's", () => {
    const table = new PriceTable({
      'gpt-4o-mini': { input: 1, output: 2 },
      'azure_openai/gpt-4o-mini': { input: 10, output: 20 },
      'llama3.2': { input: 0.05, output: 0.05 },
    });
    expect(table.costUsd('openai', 'gpt-4o-mini', MILLION)).toBeCloseTo(3);
    expect(table.costUsd('azure_openai', 'gpt-4o-mini-2024-07-18', MILLION)).toBeCloseTo(30);
    expect(table.costUsd('ollama', 'llama3.2', MILLION)).toBeCloseTo(0.1);
    expect(table.costUsd('openai', 'gpt-4o', MILLION)).toBeCloseTo(12.5);
  });
});
