import { pingContract, type ServiceName } from '@flowmesh/contracts';
import type { OwnConfigSchema, ServiceDefinition } from '@flowmesh/bootstrap';
import { DataSource } from '@flowmesh/persistence';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from './start-test-service.js';

export interface ServiceBasicsExpectation {
  /** The version the ping must report (the service's package.json version). */
  readonly version: string;
  /** The Postgres schema the service migrates; no other schema may hold its tables. */
  readonly schema: string;
  /** Tables its migrations create, besides `outbox_message` (every service has that one). */
  readonly tables?: readonly string[];
}

/**
 * What every service of the mesh promises, asserted the same way for all six: a ping over NATS
 * naming the service and its version, readiness over HTTP once NATS and Postgres answer, a
 * service header on every response, and migrations confined to its own schema.
 */
export function describeServiceBasics<S extends OwnConfigSchema>(
  definition: ServiceDefinition<S>,
  expected: ServiceBasicsExpectation,
): void {
  const name: ServiceName = definition.name;

  describe(`${name}: the basics every service has`, () => {
    let service: TestService<S>;

    beforeAll(async () => {
      service = await startTestService(definition);
    });

    afterAll(async () => {
      await service?.stop();
    });

    it('answers its ping over NATS with its name, version and healthy dependencies', async () => {
      const reply = await service.client.request(pingContract(name), {});
      expect(reply).toMatchObject({
        service: name,
        version: expected.version,
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
      expect(unknown.headers.get('x-flowmesh-service')).toBe(name);
    });

    it("takes JSON bodies past express's 100 KB, and refuses JSON nested deeper than 128 levels before any handler", async () => {
      const post = (body: string) =>
        fetch(`${service.url}/no-such-route`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
      // Past express's old 100 KB default (a service may set its own, larger, limit): parsed,
      // then routed (404), never 413.
      expect((await post(JSON.stringify({ text: 'x'.repeat(300 * 1024) }))).status).toBe(404);
      const deep = await post(`${'['.repeat(10_000)}${']'.repeat(10_000)}`);
      expect(deep.status).toBe(400);
      expect(await deep.json()).toEqual({
        code: 'VALIDATION_FAILED',
        message: 'the JSON body nests deeper than 128 levels',
      });
    });

    it(`migrated its own schema, "${expected.schema}", and nothing else`, async () => {
      const tables = ['outbox_message', ...(expected.tables ?? [])].sort();
      const rows: Array<{ schema: string; table: string }> = await service.running.app.get(DataSource).query(
        `SELECT table_schema AS "schema", table_name AS "table" FROM information_schema.tables
            WHERE table_name = ANY($1) ORDER BY table_name, table_schema`,
        [tables],
      );
      expect(rows).toEqual(tables.map((table) => ({ schema: expected.schema, table })));
    });
  });
}
