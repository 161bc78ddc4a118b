import { waitFor } from '@flowmesh/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEventTriggerMesh, WORKSPACE, type EventTriggerMesh } from './support/event-trigger-mesh.js';
import { startLogicalPostgres, type LogicalPostgres } from './support/logical-postgres.js';

/**
 * PostgreSQL triggers through logical replication, on a server with `wal_level=logical` (this
 * machine's shared one when it has it, else one the test starts from the machine's binaries):
 * Windmill's publication and slot, a row's change as `{transaction_type, schema_name,
 * table_name, row, old_row}`, and the listening replica SIGKILLed while rows are inserted: every
 * change runs exactly once.
 */
const logical = await startLogicalPostgres();
const skip = typeof logical === 'string' ? logical : undefined;
if (skip) console.log(`PostgreSQL triggers skipped: ${skip}`);

let m: EventTriggerMesh;
let db: pg.Client;
let server: LogicalPostgres;
let prefix: string;

describe.skipIf(skip !== undefined)('PostgreSQL triggers', () => {
  beforeAll(async () => {
    server = logical as LogicalPostgres;
    m = await startEventTriggerMesh();
    prefix = m.mesh.env.FLOWMESH_SUBJECT_PREFIX.replace(/[^\w]/g, '_').toLowerCase();
    await m.items.createResource({
      actor: m.actor,
      workspace: WORKSPACE,
      path: 'u/admin/orders_db',
      resource_type: 'postgresql',
      value: {
        host: server.host,
        port: server.port,
        user: server.user,
        password: '',
        dbname: server.dbname,
        sslmode: 'disable',
      },
    });
    await m.items.createScript({
      actor: m.actor,
      workspace: WORKSPACE,
      path: 'u/admin/row_change',
      summary: 'the change',
      language: 'bun',
      content:
        'export async function main(transaction_type: string, schema_name: string, table_name: string, row: any, old_row?: any) { return { transaction_type, schema_name, table_name, row, old_row }; }',
    });
    db = new pg.Client({ host: server.host, port: server.port, user: server.user, database: server.dbname });
    await db.connect();
    await db.query(`CREATE TABLE ${prefix}_orders (id int PRIMARY KEY, item text NOT NULL)`);
    await db.query(`ALTER TABLE ${prefix}_orders REPLICA IDENTITY FULL`);
  }, 240_000);

  afterAll(async () => {
    for (const slot of [`${prefix}_slot`])
      await db?.query('SELECT pg_drop_replication_slot($1)', [slot]).catch(() => undefined);
    await db?.query(`DROP PUBLICATION IF EXISTS ${prefix}_pub`).catch(() => undefined);
    await db?.query(`DROP TABLE IF EXISTS ${prefix}_orders`).catch(() => undefined);
    await db?.end().catch(() => undefined);
    await m?.stop();
    await server?.stop();
  }, 180_000);

  it('creates its publication and slot, and runs each change with Windmill’s arguments', async () => {
    const created = await m.http('POST', 'postgres_triggers/create', {
      path: 'u/admin/orders',
      script_path: 'u/admin/row_change',
      is_flow: false,
      postgres_resource_path: 'u/admin/orders_db',
      replication_slot_name: `${prefix}_slot`,
      publication_name: `${prefix}_pub`,
      publication: {
        table_to_track: [{ schema_name: 'public', table_to_track: [{ table_name: `${prefix}_orders` }] }],
        transaction_to_track: ['Insert', 'Update', 'Delete'],
      },
    });
    expect([created.status, created.text]).toEqual([201, 'u/admin/orders']);
    await m.untilState('postgres', 'u/admin/orders', 'listening');
    await db.query(`INSERT INTO ${prefix}_orders VALUES (1, 'apple')`);
    await db.query(`UPDATE ${prefix}_orders SET item = 'pear' WHERE id = 1`);
    await db.query(`DELETE FROM ${prefix}_orders WHERE id = 1`);
    const runs = await m.endedRuns('postgres', 'u/admin/orders', 3);
    const changes = (await m.resultsOf(runs)) as Array<Record<string, unknown>>;
    const byType: Record<string, Record<string, unknown>> = Object.fromEntries(
      changes.map((change) => [change.transaction_type as string, change]),
    );
    expect(byType.insert).toMatchObject({
      schema_name: 'public',
      table_name: `${prefix}_orders`,
      row: { id: 1, item: 'apple' },
    });
    expect(byType.update).toMatchObject({ row: { id: 1, item: 'pear' }, old_row: { id: 1, item: 'apple' } });
    expect(byType.delete).toMatchObject({ row: { id: 1, item: 'pear' } });
  });

  it('runs every change exactly once while the listening replica is SIGKILLed mid-stream', async () => {
    const before = (await m.runsOf('postgres', 'u/admin/orders')).length;
    const TOTAL = 40;
    const inserting = (async () => {
      for (let n = 100; n < 100 + TOTAL; n++) {
        // Two rows in one transaction now and then: a transaction is acknowledged whole.
        if (n % 10 === 0) {
          await db.query('BEGIN');
          await db.query(`INSERT INTO ${prefix}_orders VALUES ($1, $2)`, [n, `order-${n}`]);
          n++;
          await db.query(`INSERT INTO ${prefix}_orders VALUES ($1, $2)`, [n, `order-${n}`]);
          await db.query('COMMIT');
        } else await db.query(`INSERT INTO ${prefix}_orders VALUES ($1, $2)`, [n, `order-${n}`]);
        await new Promise((resolve) => setTimeout(resolve, 40));
      }
    })();
    await waitFor(
      async () => ((await m.runsOf('postgres', 'u/admin/orders')).length >= before + 8 ? true : undefined),
      {
        timeoutMs: 60_000,
        description: 'eight runs before the kill',
      },
    );
    const killed = await m.killHolder('postgres', 'u/admin/orders');
    await m.untilMoved('postgres', 'u/admin/orders', killed.serverId);
    await m.replace(killed.index);
    await inserting;
    const runs = (await m.endedRuns('postgres', 'u/admin/orders', before + TOTAL)).slice();
    const changes = (await m.resultsOf(runs)) as Array<{ transaction_type: string; row: { id: number } }>;
    const inserted = changes.filter((change) => change.transaction_type === 'insert' && change.row.id >= 100);
    expect(inserted).toHaveLength(TOTAL);
    expect(new Set(inserted.map((change) => change.row.id)).size).toBe(TOTAL);
    expect(runs).toHaveLength(before + TOTAL);
  });
});
