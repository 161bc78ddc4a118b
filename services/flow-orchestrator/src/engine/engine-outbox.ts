import { InjectMeshConnection, OutboxRelay, type MeshConnection } from '@flowmesh/messaging';
import { Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { DataSource } from 'typeorm';

/**
 * Publishes what the engine wrote to the outbox (work for workers, job events). Every process
 * of the orchestrator runs one; replicas share the table. `wake()` after a commit publishes at
 * once instead of at the next poll.
 */
@Injectable()
export class EngineOutbox implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly relay: OutboxRelay;

  constructor(dataSource: DataSource, @InjectMeshConnection() conn: MeshConnection) {
    this.relay = new OutboxRelay(dataSource, conn, {
      pollIntervalMs: 250,
      batchSize: 200,
      logger: new Logger('EngineOutbox'),
    });
  }

  onApplicationBootstrap(): void {
    this.relay.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.relay.stop();
  }

  wake(): void {
    this.relay.wake();
  }
}
