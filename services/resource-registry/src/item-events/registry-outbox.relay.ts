import { InjectMeshConnection, OutboxRelay, type MeshConnection } from '@flowmesh/messaging';
import {
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { DataSource } from 'typeorm';

/**
 * The registry's outbox relay: publishes what writes recorded in the outbox. It polls, and a
 * write that committed wakes it so events leave at once.
 */
@Injectable()
export class RegistryOutboxRelay implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly relay: OutboxRelay;

  constructor(dataSource: DataSource, @InjectMeshConnection() conn: MeshConnection) {
    this.relay = new OutboxRelay(dataSource, conn, { logger: new Logger('RegistryOutboxRelay') });
  }

  onApplicationBootstrap(): void {
    this.relay.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.relay.stop();
  }

  /** Publish now: call after a transaction that wrote events has committed. */
  wake(): void {
    this.relay.wake();
  }
}
