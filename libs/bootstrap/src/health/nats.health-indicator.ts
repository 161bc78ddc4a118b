import { InjectMeshConnection, type MeshConnection } from '@flowmesh/messaging';
import { Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { DEPENDENCY_CHECK_TIMEOUT_MS } from './health-check.constants.js';

/**
 * NATS is up when the connection is not lost nor being restored after a reconnect, and a round
 * trip to the server completes (a reconnecting client fails at once).
 */
@Injectable()
export class NatsHealthIndicator {
  constructor(
    @InjectMeshConnection() private readonly conn: MeshConnection,
    private readonly health: HealthIndicatorService,
  ) {}

  check(key = 'nats') {
    return this.health
      .check(key)
      .attempt(async () => {
        if (this.conn.nc.isClosed()) throw new Error('connection closed');
        if (this.conn.nc.isDraining()) throw new Error('connection draining');
        const outage = this.conn.outages.notReadyReason();
        if (outage) throw new Error(outage);
        const rttMs = await this.conn.nc.rtt();
        return { rttMs: Math.round(rttMs * 100) / 100 };
      })
      .withTimeout(DEPENDENCY_CHECK_TIMEOUT_MS);
  }
}
