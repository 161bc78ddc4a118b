import { describe, expect, it } from 'vitest';
import type { FlowRun } from './flow-run.js';
import { stepJobId } from './step-job-id.js';

function run(id: string, failCount?: number, ephemeral = false): FlowRun {
  return {
    id,
    ephemeral,
    status: {
      step: 0,
      modules: [],
      ...(failCount ? { retry: { fail_count: failCount, failed_jobs: [] } } : {}),
    },
  } as unknown as FlowRun;
}

describe('stepJobId', () => {
  const flow = '0b6c3d51-2f0e-4a57-9d3c-0f4f8c1d2e3a';

  it('is the same UUID each time a step runs again, per flow, slot and attempt', () => {
    const id = stepJobId(run(flow), 3);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(stepJobId(run(flow), 3)).toBe(id);
    const others = [
      stepJobId(run(flow), 2),
      stepJobId(run(flow), 'failure'),
      stepJobId(run(flow), 'preprocessor'),
      stepJobId(run(flow, 1), 3),
      stepJobId(run('7e1f0a52-9c1b-4d2e-8f3a-1b2c3d4e5f60'), 3),
    ];
    expect(new Set([id, ...others]).size).toBe(6);
  });

  it('is random in a squashed body, which writes nothing', () => {
    expect(stepJobId(run(flow, 0, true), 0)).not.toBe(stepJobId(run(flow, 0, true), 0));
  });
});
