import { checkDatabase } from '@flowmesh/persistence';
import { Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { DataSource } from 'typeorm';
import { DEPENDENCY_CHECK_TIMEOUT_MS } from './health-check.constants.js';

/** Postgres is up when the service's pool answers `SELECT 1` in time. */
@Injectable()
export class PostgresHealthIndicator {
  constructor(
    private readonly dataSource: DataSource,
    private readonly health: HealthIndicatorService,
  ) {}

  check(key = 'postgres') {
    return this.health
      .check(key)
      .attempt(() => checkDatabase(this.dataSource, DEPENDENCY_CHECK_TIMEOUT_MS))
      .withTimeout(DEPENDENCY_CHECK_TIMEOUT_MS + 250);
  }
}
