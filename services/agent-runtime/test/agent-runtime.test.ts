import { pingContract } from '@flowmesh/contracts';
import { startTestService, type TestService } from '@flowmesh/testing';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import manifest from '../package.json' with { type: 'json' };
import { agentRuntimeDefinition } from '../src/agent-runtime.definition.js';

describe('agent-runtime', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService(agentRuntimeDefinition);
  });

  afterAll(async () => {
    await service?.stop();
  });

  it('answers its ping over NATS with its name, version and healthy dependencies', async () => {
    const reply = await service.client.request(pingContract('agent-runtime'), {});
    expect(reply).toMatchObject({
      service: 'agent-runtime',
      version: manifest.version,
      checks: { nats: 'up', postgres: 'up' },
    });
    expect(reply.uptimeMs).toBeGreaterThanOrEqual(0);
  });

  it('is ready over HTTP once NATS and Postgres answer, and names itself on every response', async () => {
    const ready = await fetch(`${service.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({
      status: 'ok',
      info: { nats: { status: 'up' }, postgres: { status: 'up' } },
    });
    const unknown = await fetch(`${service.url}/no-such-route`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('x-flowmesh-service')).toBe('agent-runtime');
  });

  it('migrated its own schema, "agent_runtime", and nothing else', async () => {
    const rows: Array<{ schema: string }> = await service.running.app
      .get(DataSource)
      .query(
        `SELECT table_schema AS "schema" FROM information_schema.tables WHERE table_name = 'outbox_message'`,
      );
    expect(rows.map((row) => row.schema)).toEqual(['agent_runtime']);
  });
});
