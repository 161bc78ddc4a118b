import type { CallerIdentity } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { ResourceEntity } from './resource.entity.js';

/** One resource write, as seen inside its transaction. */
export interface ResourceWrite {
  readonly change: 'created' | 'updated' | 'deleted';
  readonly identity: CallerIdentity;
  /** The row before the write; undefined for a create. */
  readonly before: ResourceEntity | undefined;
  /** The row after the write (its path differs from `before.path` on a rename); undefined for a delete. */
  readonly after: ResourceEntity | undefined;
  /** What the caller of the write passed along (`{ restoredFrom: 7 }` for a restore), untouched. */
  readonly context: Readonly<Record<string, unknown>>;
}

/**
 * Something that must happen in the same transaction as every resource write. Resource history
 * is one: it appends a `resource_version` row (for every type but `state` and `cache`), so a
 * value and its version commit or roll back together. A listener that throws aborts the write.
 */
export interface ResourceWriteListener {
  onResourceWritten(manager: EntityManager, write: ResourceWrite): Promise<void>;
}

/**
 * Where listeners register, typically in their constructor or `onModuleInit`:
 *
 *     constructor(listeners: ResourceWriteListeners) { listeners.register(this); }
 *
 * Listeners run in registration order, after the row is written and before the event is recorded.
 */
@Injectable()
export class ResourceWriteListeners {
  private readonly listeners: ResourceWriteListener[] = [];

  register(listener: ResourceWriteListener): void {
    if (!this.listeners.includes(listener)) this.listeners.push(listener);
  }

  async notify(manager: EntityManager, write: ResourceWrite): Promise<void> {
    for (const listener of this.listeners) await listener.onResourceWritten(manager, write);
  }
}
