import { uniqueTestId } from '@flowmesh/testing';
import type { DataSource } from 'typeorm';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { checkDatabase, DatabaseUnavailableError, prepareDatabase } from '../src/index.js';
import {
  AddWidgetColor1700000000001,
  CreateWidgets1700000000000,
  databaseUrlFor,
  dropDatabase,
  queryAdmin,
  recordingLogger,
  Widget,
} from './fixtures.js';

const databases: string[] = [];
const open: DataSource[] = [];

function freshDatabase(): string {
  const name = uniqueTestId('persist');
  databases.push(name);
  return name;
}

async function start(
  database: string,
  schema: string,
  migrations: Array<new () => object> = [CreateWidgets1700000000000],
) {
  const logger = recordingLogger();
  const dataSource = await prepareDatabase({
    databaseUrl: databaseUrlFor(database),
    schema,
    entities: [Widget],
    migrations,
    logger,
  });
  open.push(dataSource);
  return { dataSource, logger };
}

async function tablesIn(database: string, schema: string): Promise<string[]> {
  const url = databaseUrlFor(database);
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<{ table_name: string }>(
      'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
      [schema],
    );
    return result.rows.map((row) => row.table_name);
  } finally {
    await client.end();
  }
}

afterEach(async () => {
  await Promise.all(
    open.splice(0).map((dataSource) => (dataSource.isInitialized ? dataSource.destroy() : Promise.resolve())),
  );
});

afterAll(async () => {
  for (const database of databases) await dropDatabase(database);
});

describe('prepareDatabase', () => {
  it('creates the missing database and schema, and keeps tables out of public', async () => {
    const database = freshDatabase();
    const schema = uniqueTestId('svc');
    expect(await queryAdmin('SELECT 1 FROM pg_database WHERE datname = $1', [database])).toHaveLength(0);

    const { dataSource, logger } = await start(database, schema);

    expect(await queryAdmin('SELECT 1 FROM pg_database WHERE datname = $1', [database])).toHaveLength(1);
    expect(await tablesIn(database, schema)).toEqual(['migrations', 'widget']);
    expect(await tablesIn(database, 'public')).toEqual([]);
    expect(logger.entries).toContainEqual(
      expect.objectContaining({ fields: { schema, migrations: ['CreateWidgets1700000000000'] } }),
    );

    // The entity maps through the snake_case naming strategy onto the migrated table.
    const saved = await dataSource.getRepository(Widget).save({ displayName: 'gear' });
    expect(saved.id).toMatch(/^[0-9a-f-]{36}$/);
    const rows = await dataSource.query<Array<{ display_name: string }>>(
      `SELECT display_name FROM "${schema}".widget`,
    );
    expect(rows).toEqual([{ display_name: 'gear' }]);
  });

  it('runs each migration exactly once when two replicas start at the same time', async () => {
    const database = freshDatabase();
    const schema = uniqueTestId('race');

    const [first, second] = await Promise.all([start(database, schema), start(database, schema)]);

    const runs = await first.dataSource.query<Array<{ name: string }>>(
      `SELECT name FROM "${schema}".migrations`,
    );
    expect(runs.map((run) => run.name)).toEqual(['CreateWidgets1700000000000']);
    const applied = [first, second].map((replica) =>
      replica.logger.entries.some((entry) => Array.isArray(entry.fields.migrations)),
    );
    expect(applied.sort()).toEqual([false, true]); // one replica migrated, the other found it done
    await checkDatabase(second.dataSource);
  });

  it('is a no-op on a second start and applies only what is new on a later one', async () => {
    const database = freshDatabase();
    const schema = uniqueTestId('again');
    await start(database, schema);

    const again = await start(database, schema);
    expect(again.logger.entries.map((entry) => entry.message)).toEqual(['schema is up to date']);

    const upgraded = await start(database, schema, [CreateWidgets1700000000000, AddWidgetColor1700000000001]);
    expect(upgraded.logger.entries).toContainEqual(
      expect.objectContaining({ fields: { schema, migrations: ['AddWidgetColor1700000000001'] } }),
    );
  });

  it('names the host in the error when the server cannot be reached', async () => {
    const unreachable = prepareDatabase({
      databaseUrl: 'postgres://flow:topsecret@127.0.0.1:1/flowmesh',
      schema: 'registry',
      entities: [],
      migrations: [],
      connectTimeoutMs: 2_000,
      logger: recordingLogger(),
    });
    await expect(unreachable).rejects.toThrow(DatabaseUnavailableError);
    await expect(unreachable).rejects.toThrow(
      /^cannot connect to PostgreSQL at 127\.0\.0\.1:1\/flowmesh as flow: .*ECONNREFUSED/,
    );
    await expect(unreachable).rejects.not.toThrow(/topsecret/);

    const unknownHost = prepareDatabase({
      databaseUrl: 'postgres://postgres@no-such-host.invalid:5432/flowmesh',
      schema: 'registry',
      entities: [],
      migrations: [],
      connectTimeoutMs: 2_000,
      logger: recordingLogger(),
    });
    await expect(unknownHost).rejects.toThrow(/no-such-host\.invalid:5432\/flowmesh/);
  });

  it('rejects a schema name that is not a plain identifier before touching the server', async () => {
    const database = freshDatabase();
    await expect(
      prepareDatabase({
        databaseUrl: databaseUrlFor(database),
        schema: 'flow-orchestrator',
        entities: [],
        migrations: [],
      }),
    ).rejects.toThrow(/use lower-case letters, digits and underscores/);
    expect(await queryAdmin('SELECT 1 FROM pg_database WHERE datname = $1', [database])).toHaveLength(0);
  });
});

describe('checkDatabase', () => {
  it('answers while the data source is open and fails once it is closed', async () => {
    const { dataSource } = await start(freshDatabase(), uniqueTestId('ready'), []);
    await expect(checkDatabase(dataSource)).resolves.toBeUndefined();
    await dataSource.destroy();
    await expect(checkDatabase(dataSource)).rejects.toThrow(/not open/);
  });
});
