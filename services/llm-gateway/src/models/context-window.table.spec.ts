import { describe, expect, it } from 'vitest';
import { contextWindowOf, knownContextWindow, tableModelId } from './context-window.table.js';

describe('context-window table', () => {
  it('finds a model by id and by dated id (longest prefix wins)', () => {
    expect(knownContextWindow('gpt-4o')).toBe(128_000);
    expect(knownContextWindow('gpt-4o-mini-2024-07-18')).toBe(128_000);
    expect(knownContextWindow('gpt-4.1-mini')).toBe(1_047_576);
    expect(knownContextWindow('gpt-4')).toBe(8_192);
    expect(knownContextWindow('gpt-4-0613')).toBe(8_192);
    expect(knownContextWindow('gemini-1.5-pro-002')).toBe(2_097_152);
  });

  it('reads provider spellings of the same model', () => {
    expect(tableModelId('us.anthropic.claude-3-5-sonnet-20240620-v1:0')).toBe('claude-3-5-sonnet-20240620');
    expect(knownContextWindow('us.anthropic.claude-3-5-sonnet-20240620-v1:0')).toBe(200_000);
    expect(knownContextWindow('claude-sonnet-4-5@20250929')).toBe(200_000);
    expect(knownContextWindow('openai/gpt-4o')).toBe(128_000);
    expect(knownContextWindow('meta-llama/llama-4-scout')).toBe(131_072);
  });

  it('gives 1M to a capable model only when the resource enables it', () => {
    expect(knownContextWindow('claude-sonnet-4-5', { enable1mContext: true })).toBe(1_000_000);
    expect(knownContextWindow('claude-opus-4-1', { enable1mContext: true })).toBe(200_000);
  });

  it('falls back to 128000 for an unknown model, and lets a call override either', () => {
    expect(contextWindowOf('my-finetune')).toEqual({
      model: 'my-finetune',
      contextWindow: 128_000,
      source: 'default',
    });
    expect(contextWindowOf('gpt-4o', 64_000)).toEqual({
      model: 'gpt-4o',
      contextWindow: 64_000,
      source: 'override',
    });
    expect(contextWindowOf('o3')).toEqual({ model: 'o3', contextWindow: 200_000, source: 'table' });
  });
});
