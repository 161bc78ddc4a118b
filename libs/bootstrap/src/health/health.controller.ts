import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckService } from '@nestjs/terminus';
import { DependencyChecks } from './dependency-checks.service.js';
import { LifecycleHealthIndicator } from './lifecycle.health-indicator.js';

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
  ) {}

  @Get('healthz')
  liveness(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('readyz')
  @HealthCheck()
  readiness() {
    return this.health.check([() => this.lifecycle.check(), ...this.dependencies.indicators()]);
  }
}
