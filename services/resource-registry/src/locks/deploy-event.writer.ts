import { randomUUID } from 'node:crypto';
import { DEPLOY_EVENTS, type LockOwnerKind } from '@flowmesh/contracts';
import { writeToOutbox } from '@flowmesh/messaging';
import { Injectable, Logger } from '@nestjs/common';
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

/** NATS refuses a message over its `max_payload` (1 MiB by default): a deploy event stays below. */
const MAX_EVENT_BYTES = 900 * 1024;
/** A lock the item already holds travels with the deploy only when small (the locker makes its own). */
const MAX_CARRIED_LOCK_CHARS = 64 * 1024;

/**
 * Tells dependency-locker what was deployed (`evt.deploy.saved`), through the outbox in the
 * deploy's own transaction: a deploy that commits is always locked, one that rolls back never.
 */
@Injectable()
export class DeployEventWriter {
  private readonly log = new Logger('DeployEventWriter');

  async saved(manager: EntityManager, item: DeployedItem): Promise<void> {
    const payload = {
      workspace: item.workspace,
      owner_kind: item.ownerKind,
      path: item.path,
      version: item.version,
      ...(item.previousPath ? { previous_path: item.previousPath } : {}),
      units: item.parts.units.map((unit) => ({
        ...unit,
        lock: unit.lock !== null && unit.lock.length <= MAX_CARRIED_LOCK_CHARS ? unit.lock : null,
      })),
      refs: item.parts.refs,
      by: item.by,
      at: new Date().toISOString(),
    };
    if (Buffer.byteLength(JSON.stringify(payload), 'utf8') > MAX_EVENT_BYTES) {
      // Its code is too large for one message: it is not locked on deploy, and a run resolves
      // its packages when it starts, as before dependency-locker.
      this.log.warn(`${item.ownerKind} ${item.path}: too large to be locked on deploy`);
      return;
    }
    await writeToOutbox(manager, DEPLOY_EVENTS.saved, payload, {
      msgId: `deploy:${item.ownerKind}:${item.workspace}:${item.path}:${randomUUID()}`,
    });
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
