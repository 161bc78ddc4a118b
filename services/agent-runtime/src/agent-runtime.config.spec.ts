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

  it("reads attachments from the mesh's bucket under attachments/{workspace}/ unless told where; none without S3", () => {
    expect(agentRuntimeConfigSchema.parse({}).agents.attachments).toBeNull();
    expect(agentRuntimeConfigSchema.parse({ S3_BUCKET: 'mesh' }).agents.attachments?.locations).toEqual([
      { bucket: 'mesh', prefix: 'attachments/{workspace}/' },
    ]);
    expect(
      agentRuntimeConfigSchema.parse({
        S3_BUCKET: 'mesh',
        FLOWMESH_AGENT_ATTACHMENTS: 'uploads/{workspace}/, shared-docs/ws-{workspace}/in/',
      }).agents.attachments?.locations,
    ).toEqual([
      { bucket: 'uploads', prefix: '{workspace}/' },
      { bucket: 'shared-docs', prefix: 'ws-{workspace}/in/' },
    ]);
    const unscoped = agentRuntimeConfigSchema.safeParse({
      S3_BUCKET: 'mesh',
      FLOWMESH_AGENT_ATTACHMENTS: 'uploads/all/',
    });
    expect(unscoped.error?.issues[0]).toMatchObject({
      path: ['FLOWMESH_AGENT_ATTACHMENTS'],
      message: '"uploads/all/": the prefix must hold {workspace}, so a workspace reads only its own objects',
    });
  });
});
