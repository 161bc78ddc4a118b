import { Injectable } from '@nestjs/common';
import type { HealthIndicatorResult } from '@nestjs/terminus';
import { NatsHealthIndicator } from './nats.health-indicator.js';
import { PostgresHealthIndicator } from './postgres.health-indicator.js';

export type DependencyState = 'up' | 'down';

/** The checks readiness and ping share, so `/readyz` and `flowmesh status` never disagree. */
@Injectable()
export class DependencyChecks {
  constructor(
    private readonly nats: NatsHealthIndicator,
    private readonly postgres: PostgresHealthIndicator,
  ) {}

  indicators(): Array<() => PromiseLike<HealthIndicatorResult>> {
    return [() => this.nats.check(), () => this.postgres.check()];
  }

  /** `{ nats: 'up', postgres: 'down' }`. */
  async snapshot(): Promise<Record<string, DependencyState>> {
    const results = await Promise.all(this.indicators().map((indicator) => indicator()));
    const states: Record<string, DependencyState> = {};
    for (const result of results) {
      for (const [key, detail] of Object.entries(result))
        states[key] = detail.status === 'up' ? 'up' : 'down';
    }
    return states;
  }
}
