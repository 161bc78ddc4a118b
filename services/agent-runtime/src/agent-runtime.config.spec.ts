import { describe, expect, it } from 'vitest';
import { agentRuntimeConfigSchema } from './agent-runtime.config.js';

describe('agent-runtime settings', () => {
  it('waits 1800 s for an approval by default, and at most a day (the job token must outlive it)', () => {
    expect(agentRuntimeConfigSchema.parse({}).agents.approvalTimeoutS).toBe(1_800);
    expect(
      agentRuntimeConfigSchema.parse({ FLOWMESH_AGENT_APPROVAL_TIMEOUT_S: '600' }).agents.approvalTimeoutS,
    ).toBe(600);
    const tooLong = agentRuntimeConfigSchema.safeParse({ FLOWMESH_AGENT_APPROVAL_TIMEOUT_S: '90000' });
    expect(tooLong.error?.issues[0]).toMatchObject({
      path: ['FLOWMESH_AGENT_APPROVAL_TIMEOUT_S'],
      message: 'must be at most 86400 (a day)',
    });
  });
});
