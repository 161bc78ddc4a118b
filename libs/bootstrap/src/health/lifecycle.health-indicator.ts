import { Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';

/**
 * Readiness turns false the moment shutdown starts, before anything closes, so a load balancer
 * or the entry point stops sending new requests while in-flight ones finish.
 */
@Injectable()
export class LifecycleHealthIndicator {
  private stopping = false;

  constructor(private readonly health: HealthIndicatorService) {}

  markStopping(): void {
    this.stopping = true;
  }

  check(key = 'lifecycle') {
    const session = this.health.check(key);
    return Promise.resolve(this.stopping ? session.down({ message: 'shutting down' }) : session.up());
  }
}
