import { randomUUID } from 'node:crypto';
import { ITEM_EVENTS, type ItemChangedEvent } from '@flowmesh/contracts';
import { writeToOutbox } from '@flowmesh/messaging';
import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ItemWriteInvalidation } from './item-write.invalidation.js';
import { REPLICA_STALE_MS } from './replica-staleness.js';

export type ItemEventInput = Omit<ItemChangedEvent, 'at' | 'stale_for_ms'>;

/**
 * Records an item event in the outbox through the write's own transaction, so the event is
 * published exactly when the change commits (and never for one that rolls back). Every item
 * write passes here, so this is also where this process's read cache learns of it.
 */
@Injectable()
export class ItemEventWriter {
  constructor(
    private readonly invalidation: ItemWriteInvalidation,
    @Inject(REPLICA_STALE_MS) private readonly staleForMs: number,
  ) {}

  async record(manager: EntityManager, event: ItemEventInput): Promise<void> {
    this.invalidation.written(manager, event);
    const payload: ItemChangedEvent = {
      ...event,
      at: new Date().toISOString(),
      stale_for_ms: this.staleForMs,
    };
    await writeToOutbox(manager, ITEM_EVENTS[event.kind][event.change], payload, {
      // One message per write: a relay that republishes the row is dropped by JetStream.
      msgId: `${event.kind}:${event.change}:${event.workspace}:${event.path}:${randomUUID()}`,
    });
  }
}
