import { describe, expect, it } from 'vitest';
import { SnakeNamingStrategy, snakeCase } from './snake-naming.strategy.js';

describe('snakeCase', () => {
  it.each([
    ['createdAt', 'created_at'],
    ['JobResult', 'job_result'],
    ['aiAgentCheckpoint', 'ai_agent_checkpoint'],
    ['HTTPRequest', 'http_request'],
    ['stepId2', 'step_id2'],
    ['already_snake', 'already_snake'],
  ])('%s → %s', (input, expected) => {
    expect(snakeCase(input)).toBe(expected);
  });
});

describe('SnakeNamingStrategy', () => {
  const strategy = new SnakeNamingStrategy();

  it('names tables and columns in snake_case unless given a name', () => {
    expect(strategy.tableName('FlowStatus', undefined)).toBe('flow_status');
    expect(strategy.tableName('FlowStatus', 'Custom')).toBe('Custom');
    expect(strategy.columnName('onBehalfOf', undefined as unknown as string, [])).toBe('on_behalf_of');
    expect(strategy.columnName('createdAt', 'made', [])).toBe('made');
  });

  it('prefixes embedded columns', () => {
    expect(strategy.columnName('inputTokens', undefined as unknown as string, ['tokenUsage'])).toBe(
      'token_usage_input_tokens',
    );
  });

  it('names join columns after the relation', () => {
    expect(strategy.joinColumnName('parentJob', 'id')).toBe('parent_job_id');
  });
});
