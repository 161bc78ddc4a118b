import pg from 'pg';
import { Column, Entity, type MigrationInterface, type QueryRunner } from 'typeorm';
import { CreatedAtColumn, UuidPrimaryColumn, type PersistenceLogger } from '../src/index.js';

@Entity()
export class Widget {
  @UuidPrimaryColumn()
  id!: string;

  @Column({ type: 'text' })
  displayName!: string;

  @CreatedAtColumn()
  createdAt!: Date;
}

/** Unqualified SQL on purpose: it must land in the service schema through search_path. */
export class CreateWidgets1700000000000 implements MigrationInterface {
  name = 'CreateWidgets1700000000000';

  async up(runner: QueryRunner): Promise<void> {
    // No IF NOT EXISTS: running this twice fails, which is what the concurrency test relies on.
    await runner.query(`CREATE TABLE widget (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      display_name text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
    // Widens the window in which a second, unlocked replica would also see this as pending.
    await runner.query('SELECT pg_sleep(0.3)');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE widget');
  }
}

export class AddWidgetColor1700000000001 implements MigrationInterface {
  name = 'AddWidgetColor1700000000001';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE widget ADD COLUMN color text');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE widget DROP COLUMN color');
  }
}

export interface LogEntry {
  level: 'info' | 'warn' | 'error';
  fields: Record<string, unknown>;
  message: string;
}

export function recordingLogger(): PersistenceLogger & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const record = (level: LogEntry['level']) => (fields: Record<string, unknown>, message: string) =>
    void entries.push({ level, fields, message });
  return { entries, info: record('info'), warn: record('warn'), error: record('error') };
}

/** `DATABASE_URL` with another database name. */
export function databaseUrlFor(database: string): string {
  const url = new URL(requireDatabaseUrl());
  url.pathname = `/${database}`;
  return url.toString();
}

export async function queryAdmin<T extends pg.QueryResultRow>(
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: requireDatabaseUrl() });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

export async function dropDatabase(database: string): Promise<void> {
  await queryAdmin(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
}

function requireDatabaseUrl(): string {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set (the vitest global setup provides it)');
  return url;
}
