import type { Logger as TypeOrmLogger } from 'typeorm';
import type { PersistenceLogger } from './persistence-options.js';

/**
 * TypeORM's logger interface onto ours. Query parameters are never logged (they may hold
 * secrets); a failed query logs its text and the error.
 */
export class TypeOrmLoggerAdapter implements TypeOrmLogger {
  constructor(private readonly logger: PersistenceLogger) {}

  logQuery(): void {}

  logQueryError(error: string | Error, query: string): void {
    this.logger.error({ query, error: error instanceof Error ? error.message : error }, 'query failed');
  }

  logQuerySlow(durationMs: number, query: string): void {
    this.logger.warn({ query, durationMs }, 'slow query');
  }

  logSchemaBuild(): void {}

  logMigration(message: string): void {
    this.logger.info({}, message);
  }

  log(level: 'log' | 'info' | 'warn', message: unknown): void {
    if (level === 'warn') this.logger.warn({}, String(message));
    else this.logger.info({}, String(message));
  }
}
