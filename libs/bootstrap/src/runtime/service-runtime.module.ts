import type { RequestContract } from '@flowmesh/contracts';
import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import { ReadinessChangesLog } from '../health/readiness-changes.log.js';
import type { ServiceConfig } from '../config/service-config.js';
import { DependencyChecks } from '../health/dependency-checks.service.js';
import { HealthController } from '../health/health.controller.js';
import { MeshErrorHttpFilter } from '../http/mesh-error-http.filter.js';
import { MetricsController } from '../metrics/metrics.controller.js';
import { LifecycleHealthIndicator } from '../health/lifecycle.health-indicator.js';
import { NatsHealthIndicator } from '../health/nats.health-indicator.js';
import { PostgresHealthIndicator } from '../health/postgres.health-indicator.js';
import { createPingController } from '../ping/ping.controller.js';
import { ProcessIdentity } from './process-identity.js';
import { ServiceContextModule } from './service-context.module.js';

export interface ServiceRuntimeOptions {
  readonly config: ServiceConfig<object>;
  readonly identity: ProcessIdentity;
  readonly pingContract: RequestContract;
  /** The service's own module (or its worker module), with its messaging and persistence. */
  readonly rootModule: DynamicModule;
}

/** What every service has around its own module: config, identity, health, metrics, ping and HTTP error answers. */
@Module({})
export class ServiceRuntimeModule {
  static forRoot(options: ServiceRuntimeOptions): DynamicModule {
    return {
      module: ServiceRuntimeModule,
      imports: [
        ServiceContextModule.forRoot(options.config, options.identity),
        options.rootModule,
        // Not a line per failed probe: ReadinessChangesLog says when readiness changes.
        TerminusModule.forRoot({ logger: false }),
      ],
      controllers: [HealthController, MetricsController, createPingController(options.pingContract)],
      providers: [
        NatsHealthIndicator,
        PostgresHealthIndicator,
        LifecycleHealthIndicator,
        ReadinessChangesLog,
        DependencyChecks,
        { provide: APP_FILTER, useClass: MeshErrorHttpFilter },
      ],
    };
  }
}
