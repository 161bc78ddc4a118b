import { Injectable, type OnModuleInit } from '@nestjs/common';
import {
  DataSource,
  type EntityManager,
  type EntitySubscriberInterface,
  type QueryRunner,
  type TransactionCommitEvent,
  type TransactionRollbackEvent,
} from 'typeorm';
import { ItemReadCache, type ChangedItem } from '../items/item-read.cache.js';

/**
 * Drops the read cache's rows of the items this process writes, so its next read sees the write:
 * once when the write records its event, inside the transaction, and again when that transaction
 * ends, because a read in between still sees the committed row as it was before and may have
 * cached it. A deploy or a draft writing in its caller's transaction is covered the same way
 * (a TypeORM transaction subscriber, not a convention each caller must follow).
 */
@Injectable()
export class ItemWriteInvalidation implements EntitySubscriberInterface, OnModuleInit {
  private readonly pending = new WeakMap<QueryRunner, ChangedItem[]>();

  constructor(
    private readonly cache: ItemReadCache,
    private readonly dataSource: DataSource,
  ) {}

  onModuleInit(): void {
    this.dataSource.subscribers.push(this);
  }

  /** A write of `change` through `manager` (in a transaction or not) is being recorded. */
  written(manager: EntityManager, change: ChangedItem): void {
    this.cache.invalidateChanged(change);
    const runner = manager.queryRunner;
    if (!runner?.isTransactionActive) return;
    const changes = this.pending.get(runner);
    if (changes) changes.push(change);
    else this.pending.set(runner, [change]);
  }

  afterTransactionCommit(event: TransactionCommitEvent): void {
    this.settle(event.queryRunner);
  }

  afterTransactionRollback(event: TransactionRollbackEvent): void {
    this.settle(event.queryRunner);
  }

  private settle(runner: QueryRunner): void {
    // A savepoint released or rolled back inside a transaction: the outer one decides.
    if (runner.isTransactionActive) return;
    const changes = this.pending.get(runner);
    if (!changes) return;
    this.pending.delete(runner);
    for (const change of changes) this.cache.invalidateChanged(change);
  }
}
