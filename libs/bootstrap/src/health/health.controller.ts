import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { HealthCheck, HealthCheckService, type HealthCheckResult } from '@nestjs/terminus';
import { DependencyChecks } from './dependency-checks.service.js';
import { LifecycleHealthIndicator } from './lifecycle.health-indicator.js';
import { ReadinessChangesLog } from './readiness-changes.log.js';

/**
 * `/healthz`: liveness, the process answers at all (restart it if not).
 * `/readyz`: readiness, NATS and Postgres answer and the process is not shutting down
 * (send it traffic only then).
 */
@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly dependencies: DependencyChecks,
    private readonly lifecycle: LifecycleHealthIndicator,
    private readonly changes: ReadinessChangesLog,
  ) {}

  @Get('healthz')
  liveness(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('readyz')
  @HealthCheck()
  async readiness(): Promise<HealthCheckResult> {
    try {
      const result = await this.health.check([
        () => this.lifecycle.check(),
        ...this.dependencies.indicators(),
      ]);
      this.changes.ready();
      return result;
    } catch (error) {
      if (error instanceof ServiceUnavailableException)
        this.changes.notReady(error.getResponse() as HealthCheckResult);
      throw error;
    }
  }
}
