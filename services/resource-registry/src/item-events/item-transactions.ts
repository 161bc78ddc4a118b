import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { RegistryOutboxRelay } from './registry-outbox.relay.js';

/**
 * One transaction per write: the item, its event in the outbox and whatever a write listener
 * adds (a resource version) commit together. A caller that already holds a transaction (a
 * deploy writing many items all-or-nothing) passes its manager; it then commits, and calls
 * `wake()` after, itself.
 */
@Injectable()
export class ItemTransactions {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: RegistryOutboxRelay,
  ) {}

  async run<T>(outer: EntityManager | undefined, work: (manager: EntityManager) => Promise<T>): Promise<T> {
    if (outer) return work(outer);
    const result = await this.dataSource.transaction(work);
    this.relay.wake();
    return result;
  }

  /** Reads outside any write. */
  get manager(): EntityManager {
    return this.dataSource.manager;
  }

  /** Publish the events of a transaction the caller committed. */
  wake(): void {
    this.relay.wake();
  }
}
