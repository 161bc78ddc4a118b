import { QueryFailedError } from 'typeorm';
import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from './database-fault.js';

const pgError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it('takes an unreachable, full or restarting database for unavailable', () => {
    expect(isDatabaseUnavailable(pgError('53300', 'sorry, too many clients already'))).toBe(true);
    expect(isDatabaseUnavailable(pgError('57P01', 'terminating connection'))).toBe(true);
    expect(isDatabaseUnavailable(pgError('08006', 'connection failure'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseUnavailable(new QueryFailedError('SELECT 1', [], pgError('53300', 'full')))).toBe(true);
  });

  it('leaves a wrong statement, and anything else, alone', () => {
    expect(isDatabaseUnavailable(pgError('23505', 'duplicate key'))).toBe(false);
    expect(isDatabaseUnavailable(new QueryFailedError('SELECT x', [], pgError('42703', 'no column')))).toBe(
      false,
    );
    expect(isDatabaseUnavailable(new Error('the tool failed'))).toBe(false);
    expect(isDatabaseUnavailable('a string')).toBe(false);
  });
});
