import { randomUUID } from 'node:crypto';
import { DEPLOY_EVENTS, type LockOwnerKind } from '@flowmesh/contracts';
import { writeToOutbox } from '@flowmesh/messaging';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { LockableParts } from './lockable-units.js';

export interface DeployedItem {
  readonly workspace: string;
  readonly ownerKind: LockOwnerKind;
  readonly path: string;
  readonly version: string;
  readonly previousPath?: string;
  readonly parts: LockableParts;
  readonly by: string;
}

/**
 * Tells dependency-locker what was deployed (`evt.deploy.saved`), through the outbox in the
 * deploy's own transaction: a deploy that commits is always locked, one that rolls back never.
 */
@Injectable()
export class DeployEventWriter {
  async saved(manager: EntityManager, item: DeployedItem): Promise<void> {
    await writeToOutbox(
      manager,
      DEPLOY_EVENTS.saved,
      {
        workspace: item.workspace,
        owner_kind: item.ownerKind,
        path: item.path,
        version: item.version,
        ...(item.previousPath ? { previous_path: item.previousPath } : {}),
        units: item.parts.units,
        refs: item.parts.refs,
        by: item.by,
        at: new Date().toISOString(),
      },
      { msgId: `deploy:${item.ownerKind}:${item.workspace}:${item.path}:${randomUUID()}` },
    );
  }

  async deleted(
    manager: EntityManager,
    item: { workspace: string; ownerKind: LockOwnerKind; path: string; by: string },
  ): Promise<void> {
    await writeToOutbox(
      manager,
      DEPLOY_EVENTS.deleted,
      {
        workspace: item.workspace,
        owner_kind: item.ownerKind,
        path: item.path,
        by: item.by,
        at: new Date().toISOString(),
      },
      { msgId: `undeploy:${item.ownerKind}:${item.workspace}:${item.path}:${randomUUID()}` },
    );
  }
}
