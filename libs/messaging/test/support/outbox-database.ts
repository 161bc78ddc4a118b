import { CreateOutbox1700000000000, OutboxMessageEntity } from '@flowmesh/messaging';
import { uniqueTestId } from '@flowmesh/testing';
import pg from 'pg';
import { DataSource } from 'typeorm';

/** A Postgres schema of its own for one test file, with the outbox migration applied. */
export class OutboxDatabase {
  readonly schema = uniqueTestId('outbox');
  private readonly sources: DataSource[] = [];

  static async create(): Promise<OutboxDatabase> {
    const db = new OutboxDatabase();
    await db.sql(`CREATE SCHEMA "${db.schema}"`);
    const migrator = await db.dataSource('migrator');
    await migrator.runMigrations({ transaction: 'all' });
    return db;
  }

  /** A TypeORM data source on this schema; `applicationName` lets a test find its backend. */
  async dataSource(applicationName: string): Promise<DataSource> {
    const source = new DataSource({
      type: 'postgres',
      url: databaseUrl(),
      schema: this.schema,
      applicationName: `${this.schema}-${applicationName}`,
      entities: [OutboxMessageEntity],
      migrations: [CreateOutbox1700000000000],
      poolSize: 4,
    });
    await source.initialize();
    this.sources.push(source);
    return source;
  }

  /** One statement on a fresh connection (outside any data source). */
  async sql<Row = Record<string, unknown>>(text: string, values: unknown[] = []): Promise<Row[]> {
    const client = new pg.Client({ connectionString: databaseUrl() });
    await client.connect();
    try {
      return (await client.query(text, values)).rows as Row[];
    } finally {
      await client.end();
    }
  }

  async dispose(): Promise<void> {
    for (const source of this.sources.splice(0)) {
      if (source.isInitialized) await source.destroy().catch(() => undefined);
    }
    await this.sql(`DROP SCHEMA IF EXISTS "${this.schema}" CASCADE`);
  }
}

export function databaseUrl(): string {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set (the vitest global setup sets it)');
  return url;
}
