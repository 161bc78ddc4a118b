import { randomBytes } from 'node:crypto';
import { loadServiceConfig } from '@flowmesh/bootstrap';
import { describe, expect, it } from 'vitest';
import { flowOrchestratorConfigSchema } from './flow-orchestrator.config.js';

const key = () => randomBytes(32).toString('base64');

describe('FLOWMESH_JOB_TOKEN_STORE_KEYS', () => {
  it('is a required setting in production', () => {
    expect(() =>
      loadServiceConfig('flow-orchestrator', flowOrchestratorConfigSchema, {
        NODE_ENV: 'production',
        FLOWMESH_RESUME_KEY: 'r'.repeat(40),
      }),
    ).toThrow(/FLOWMESH_JOB_TOKEN_STORE_KEYS/);
    const config = loadServiceConfig('flow-orchestrator', flowOrchestratorConfigSchema, {
      NODE_ENV: 'production',
      FLOWMESH_RESUME_KEY: 'r'.repeat(40),
      FLOWMESH_JOB_TOKEN_STORE_KEYS: `k1:${key()}`,
    });
    expect(config.engine.jobTokenKeys.current.id).toBe('k1');
  });
});
