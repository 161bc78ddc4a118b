import { UNVERSIONED_RESOURCE_TYPES } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  ResourceWriteListeners,
  type ResourceWrite,
  type ResourceWriteListener,
} from '../resources/resource-write.listeners.js';
import { ResourceVersionRepository } from './resource-version.repository.js';

/** What a write may tell the history through `WriteOptions.context`. */
export interface HistoryWriteContext {
  /** The version a restore copied. */
  readonly restoredFrom?: number;
}

/**
 * Appends a version on every resource create and update, inside the write's transaction, for
 * every type but `state` and `cache`. A delete needs nothing here: the history goes with the
 * resource (foreign key, `ON DELETE CASCADE`), and a rename carries it along (`ON UPDATE CASCADE`).
 */
@Injectable()
export class ResourceHistoryRecorder implements ResourceWriteListener {
  constructor(
    listeners: ResourceWriteListeners,
    private readonly versions: ResourceVersionRepository,
  ) {
    listeners.register(this);
  }

  async onResourceWritten(manager: EntityManager, write: ResourceWrite): Promise<void> {
    const row = write.after;
    if (!row || UNVERSIONED_RESOURCE_TYPES.includes(row.resourceType)) return;
    const restoredFrom = (write.context as HistoryWriteContext).restoredFrom;
    await this.versions.append(manager, {
      workspace: row.workspaceId,
      path: row.path,
      resourceType: row.resourceType,
      value: row.value,
      description: row.description,
      createdBy: write.identity.username,
      ...(typeof restoredFrom === 'number' ? { restoredFrom } : {}),
    });
  }
}
