import { freePort, runFlowmesh, startMesh, type TestMesh } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

describe('flowmesh status', () => {
  let mesh: TestMesh;

  // Two of the seven processes: enough to see both "up" and "down" rows, at a third of the cost.
  beforeAll(async () => {
    mesh = await startMesh({ processes: ['llm-gateway', 'flow-orchestrator-worker'] });
  }, 180_000);

  afterAll(async () => {
    await mesh?.stop();
  });

  it('lists each process with its version and health, asked over NATS, and exits 1 while some are down', async () => {
    const result = await runFlowmesh(['status', '--timeout', '500'], { env: mesh.env });
    expect(result.code).toBe(1);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(8);
    expect(lines[0]).toMatch(/^PROCESS\s+VERSION\s+HEALTH\s+UPTIME\s+CHECKS$/);
    const row = (name: string) => lines.find((line) => line.startsWith(`${name} `));
    expect(row('llm-gateway')).toMatch(/^llm-gateway\s+0\.1\.0\s+up\s+\d+s\s+nats:up postgres:up$/);
    expect(row('flow-orchestrator-worker')).toMatch(
      /^flow-orchestrator-worker\s+0\.1\.0\s+up\s+\d+s\s+nats:up postgres:up$/,
    );
    expect(row('resource-registry')).toMatch(/^resource-registry\s+-\s+down\s+-\s+no answer$/);
  });

  it('gives the same answer as JSON with --json', async () => {
    const result = await runFlowmesh(['status', '--json', '--timeout', '500'], { env: mesh.env });
    expect(result.code).toBe(1);
    const rows = JSON.parse(result.stdout) as Array<Record<string, unknown>>;
    expect(rows.map((row) => row.name)).toEqual([
      'flow-orchestrator',
      'agent-runtime',
      'llm-gateway',
      'memory-service',
      'resource-registry',
      'dependency-locker',
      'flow-orchestrator-worker',
    ]);
    expect(rows.find((row) => row.name === 'flow-orchestrator-worker')).toMatchObject({
      service: 'flow-orchestrator',
      role: 'worker',
      health: 'up',
      version: '0.1.0',
      checks: { nats: 'up', postgres: 'up' },
    });
    expect(rows.find((row) => row.name === 'flow-orchestrator')).toMatchObject({
      health: 'down',
      error: 'no answer',
    });
  });

  it('says in one line when NATS cannot be reached', async () => {
    const natsUrl = `nats://127.0.0.1:${await freePort()}`;
    const result = await runFlowmesh(['status'], { env: { NATS_URL: natsUrl } });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(new RegExp(`^flowmesh: cannot connect to NATS at ${natsUrl}: [^\\n]+\\n$`));
  });
});
