import pg from 'pg';
import { uniqueTestId } from '../infra/test-infrastructure.js';

export interface TestDatabase {
  /** `DATABASE_URL` of a database no other test uses; services create it on start. */
  readonly url: string;
  readonly name: string;
  /** Drops the database, closing whatever is still connected to it. */
  drop(): Promise<void>;
}

/** A fresh database name on the server of `baseUrl` (default `DATABASE_URL`). */
export function withTestDatabase(label = 'db', baseUrl = requiredEnv('DATABASE_URL')): TestDatabase {
  const name = uniqueTestId(label);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: async () => {
      const client = new pg.Client({ connectionString: baseUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
        // The roles `flowmesh start` made for it (`<database>_<schema>`, the server's, not the database's).
        const roles = await client.query<{ rolname: string }>(
          `SELECT rolname FROM pg_roles WHERE starts_with(rolname, $1)`,
          [`${name.toLowerCase()}_`],
        );
        for (const { rolname } of roles.rows) await client.query(`DROP ROLE IF EXISTS "${rolname}"`);
      } finally {
        await client.end();
      }
    },
  };
}

/** A subject prefix (and so stream names) no other test uses. */
export function testSubjectPrefix(label = 't'): string {
  return uniqueTestId(label);
}

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value)
    throw new Error(`${name} is not set; run tests through vitest with libs/testing/vitest.config.ts`);
  return value;
}
