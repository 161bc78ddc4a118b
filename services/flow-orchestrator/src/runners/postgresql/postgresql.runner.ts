import { PostgresqlResourceValueSchema, type ScriptLanguage } from '@flowmesh/contracts';
import pg from 'pg';
import type { z } from 'zod';
import {
  JobError,
  type LogLineSink,
  type ScriptJob,
  type ScriptRunner,
  type ScriptRunOptions,
} from '../../ports/script-runner.port.js';
import { jobErrors } from '../job-errors.js';
import { sqlParams, sqlValues } from './sql-params.util.js';

export interface PostgresqlRunnerOptions {
  readonly maxResultBytes: number;
  /** Longest wait for the database to accept the connection. */
  readonly connectTimeoutMs: number;
}

type PostgresqlResource = z.infer<typeof PostgresqlResourceValueSchema>;

/** SQLSTATE of a statement stopped by `statement_timeout` (or a cancel). */
const QUERY_CANCELED = '57014';

/**
 * `postgresql` scripts: the query runs against the `postgresql` resource in the argument
 * `database` (the engine has resolved `$res:` by then), its other arguments bound as parameters
 * `$1..$N` as the script's `-- $N name` comments declare them. One connection per job, so no
 * session state (`SET`, temporary tables, roles) passes from one job to another; the job's time
 * limit is the statement timeout. The result is the rows as objects; a script of several
 * statements (possible only without parameters) gives one array of rows per statement.
 */
export class PostgresqlRunner implements ScriptRunner {
  readonly languages: readonly ScriptLanguage[] = ['postgresql'];

  constructor(private readonly options: PostgresqlRunnerOptions) {}

  async run(job: ScriptJob, onLog: LogLineSink, options: ScriptRunOptions = {}): Promise<unknown> {
    options.onStart?.();
    const { signal } = options;
    if (signal?.aborted) throw jobErrors.canceled();
    const resource = databaseOf(job);
    const values = sqlValues(sqlParams(job.content), job.args);
    const client = new pg.Client({
      host: resource.host,
      port: resource.port ?? 5432,
      user: resource.user,
      ...(resource.password === undefined ? {} : { password: resource.password }),
      database: resource.dbname,
      ssl: sslOf(resource),
      statement_timeout: job.timeoutMs,
      connectionTimeoutMillis: Math.min(job.timeoutMs, this.options.connectTimeoutMs),
      application_name: `flowmesh job ${job.id}`.slice(0, 63),
    });
    // A connection dropped under us surfaces through the query; the event must not crash the worker.
    client.on('error', () => undefined);
    let stopped: JobError | undefined;
    const stop = (error: JobError): void => {
      stopped ??= error;
      void client.end().catch(() => undefined);
    };
    const timer = setTimeout(() => stop(jobErrors.timeout(job.timeoutMs)), job.timeoutMs);
    const onAbort = (): void => stop(jobErrors.canceled());
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await client.connect();
      const outcome = (await client.query({ text: job.content, values })) as
        pg.QueryResult | pg.QueryResult[];
      const results = Array.isArray(outcome) ? outcome : [outcome];
      for (const result of results)
        onLog(`${result.command ?? 'statement'}: ${result.rowCount ?? result.rows.length} row(s)`);
      const value: unknown = Array.isArray(outcome)
        ? outcome.map((result): unknown[] => result.rows as unknown[])
        : (outcome.rows as unknown[]);
      const json = JSON.stringify(value);
      const bytes = Buffer.byteLength(json);
      if (bytes > this.options.maxResultBytes)
        throw jobErrors.resultTooLarge(bytes, this.options.maxResultBytes);
      return JSON.parse(json) as unknown;
    } catch (error) {
      if (stopped) throw stopped;
      if (error instanceof JobError) throw error;
      throw describeDatabaseError(error, job.timeoutMs);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      await client.end().catch(() => undefined);
    }
  }
}

function databaseOf(job: ScriptJob): PostgresqlResource {
  const value = job.args.database;
  if (value === undefined || value === null) {
    throw new JobError(
      'ExecutionErr',
      'a postgresql script needs the argument database: a postgresql resource (e.g. $res:f/folder/db)',
    );
  }
  if (typeof value === 'string') {
    throw new JobError(
      'ExecutionErr',
      `argument database: expected a postgresql resource value, got the text ${JSON.stringify(value.slice(0, 80))}`,
    );
  }
  const parsed = PostgresqlResourceValueSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `database.${issue.path.join('.')}` : 'database';
    throw new JobError('ExecutionErr', `argument ${where}: ${issue?.message ?? 'not a postgresql resource'}`);
  }
  return parsed.data;
}

function sslOf(resource: PostgresqlResource): pg.ClientConfig['ssl'] {
  switch (resource.sslmode) {
    case 'require':
      return { rejectUnauthorized: false };
    case 'verify-ca':
      // The chain is checked, the host name is not: what libpq's verify-ca means.
      return {
        rejectUnauthorized: true,
        ...(resource.root_certificate_pem ? { ca: resource.root_certificate_pem } : {}),
        checkServerIdentity: () => undefined,
      };
    case 'verify-full':
      return {
        rejectUnauthorized: true,
        ...(resource.root_certificate_pem ? { ca: resource.root_certificate_pem } : {}),
      };
    default:
      // disable, allow, prefer: node-postgres cannot fall back from TLS, so it connects without.
      return false;
  }
}

function describeDatabaseError(error: unknown, timeoutMs: number): JobError {
  const database = error as { code?: string; message?: string; detail?: string; position?: string };
  if (database.code === QUERY_CANCELED) return jobErrors.timeout(timeoutMs);
  const message = database.message ?? String(error);
  if (typeof database.code === 'string' && /^[0-9A-Z]{5}$/.test(database.code)) {
    const detail = database.detail ? ` (${database.detail})` : '';
    return new JobError('PostgresError', `${message}${detail} [SQLSTATE ${database.code}]`);
  }
  return new JobError('PostgresError', `could not run the query: ${message}`);
}
