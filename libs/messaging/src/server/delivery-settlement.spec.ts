import { MeshError } from '@flowmesh/contracts';
import { describe, expect, it } from 'vitest';
import { backoffFor, exhaustedReason, settleFailure } from './delivery-settlement.js';

const policy = { maxDeliver: 3, backoffMs: [100, 500] };

describe('settleFailure', () => {
  it('retries a transient failure with the backoff of this attempt', () => {
    expect(settleFailure(new Error('boom'), 1, policy)).toEqual({ kind: 'retry', delayMs: 100 });
    expect(settleFailure(new MeshError('TIMEOUT', 'slow'), 2, policy)).toEqual({
      kind: 'retry',
      delayMs: 500,
    });
  });

  it('dead-letters on the last allowed delivery with the reason and the count', () => {
    expect(settleFailure(new Error('boom'), 3, policy)).toEqual({
      kind: 'dead-letter',
      reason: { code: 'INTERNAL', message: 'Error: boom (gave up after 3 deliveries)' },
    });
  });

  it('dead-letters a permanent error at once, keeping its envelope', () => {
    const error = new MeshError('VALIDATION_FAILED', 'invalid job', {
      issues: [{ path: 'tag', message: 'required' }],
    });
    expect(settleFailure(error, 1, policy)).toEqual({ kind: 'dead-letter', reason: error.toEnvelope() });
  });

  it('retries conflicts and limits, which may clear', () => {
    expect(settleFailure(new MeshError('CONFLICT', 'locked'), 1, policy).kind).toBe('retry');
    expect(settleFailure(new MeshError('LIMIT_EXCEEDED', 'rate'), 1, policy).kind).toBe('retry');
  });
});

describe('backoffFor', () => {
  it('repeats the last delay and tolerates an empty list', () => {
    expect([1, 2, 3, 9].map((n) => backoffFor(n, [10, 20]))).toEqual([10, 20, 20, 20]);
    expect(backoffFor(4, [])).toBe(0);
  });
});

describe('exhaustedReason', () => {
  it('says the last delivery never settled', () => {
    expect(exhaustedReason(4, 3)).toMatchObject({
      code: 'LIMIT_EXCEEDED',
      message: expect.stringContaining('never settled') as string,
    });
  });
});
