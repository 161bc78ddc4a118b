import { pingContract } from '@flowmesh/contracts';
import { startTestService, type TestService } from '@flowmesh/testing';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import manifest from '../package.json' with { type: 'json' };
import { memoryServiceDefinition } from '../src/memory-service.definition.js';

describe('memory-service', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService(memoryServiceDefinition);
  });

  afterAll(async () => {
    await service?.stop();
  });

  it('answers its ping over NATS with its name, version and healthy dependencies', async () => {
    const reply = await service.client.request(pingContract('memory-service'), {});
    expect(reply).toMatchObject({
      service: 'memory-service',
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
    expect(unknown.headers.get('x-flowmesh-service')).toBe('memory-service');
  });

  it('migrated its own schema, "memory", and nothing else', async () => {
    const rows: Array<{ schema: string; table: string }> = await service.running.app.get(DataSource).query(
      `SELECT table_schema AS "schema", table_name AS "table" FROM information_schema.tables
        WHERE table_name IN ('outbox_message', 'ai_agent_memory', 'flow_conversation', 'flow_conversation_message')
        ORDER BY table_name`,
    );
    expect(rows).toEqual(
      ['ai_agent_memory', 'flow_conversation', 'flow_conversation_message', 'outbox_message'].map(
        (table) => ({ schema: 'memory', table }),
      ),
    );
  });
});
