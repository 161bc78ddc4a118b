import { Injectable, Logger } from '@nestjs/common';
import { DataSource, type QueryRunner } from 'typeorm';

/**
 * Which replica listens to which trigger: a PostgreSQL advisory lock per trigger, held by the
 * session of one connection this replica keeps apart. A replica that dies loses its connection,
 * and Postgres releases its locks at once: another replica takes the trigger on its next poll.
 * A replica that loses the connection itself (the database went away) must stop every listener
 * it had (`lost`), for another may hold them now.
 */
@Injectable()
export class TriggerLeases {
  private readonly log = new Logger(TriggerLeases.name);
  private runner: QueryRunner | undefined;

  constructor(private readonly dataSource: DataSource) {}

  /** Whether the session is alive (opening one when there is none): false means every lease is lost. */
  async alive(): Promise<boolean> {
    try {
      if (!this.runner) {
        const runner = this.dataSource.createQueryRunner();
        await runner.connect();
        this.runner = runner;
      }
      await this.runner.query('SELECT 1');
      return true;
    } catch (error) {
      this.log.warn(`the trigger leases' connection failed (${(error as Error).message}); listeners stop`);
      await this.close();
      return false;
    }
  }

  /** Takes the lease of `key` if no replica holds it. */
  async tryAcquire(key: string): Promise<boolean> {
    if (!this.runner) return false;
    const rows = (await this.runner.query(`SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS taken`, [
      `event-trigger:${key}`,
    ])) as Array<{ taken: boolean }>;
    return rows[0]?.taken === true;
  }

  async release(key: string): Promise<void> {
    if (!this.runner) return;
    await this.runner
      .query(`SELECT pg_advisory_unlock(hashtextextended($1, 0))`, [`event-trigger:${key}`])
      .catch(() => undefined);
  }

  /** Closes the session: every lease it held is released. */
  async close(): Promise<void> {
    const runner = this.runner;
    this.runner = undefined;
    await runner?.release().catch(() => undefined);
  }
}
