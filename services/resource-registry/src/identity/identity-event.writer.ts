import { randomUUID } from 'node:crypto';
import { IDENTITY_EVENTS, type EventContract, type IdentityEvent } from '@flowmesh/contracts';
import { AuthenticationCache } from '@flowmesh/http';
import { writeToOutbox } from '@flowmesh/messaging';
import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Authenticated } from '../auth/authenticated.js';
import { FolderRepository } from '../folders/folder.repository.js';
import { ItemTransactions } from '../item-events/item-transactions.js';
import { REPLICA_STALE_MS } from '../item-events/replica-staleness.js';

/** An identity event as written: `at` is stamped here. */
export type IdentityFact = {
  [K in IdentityEvent['name']]: {
    readonly name: K;
    readonly event: Omit<Extract<IdentityEvent, { name: K }>['event'], 'at' | 'stale_for_ms'>;
  };
}[IdentityEvent['name']];

/**
 * Identity writes (a token revoked, a member or group changed, a folder's roles) and their
 * `evt.identity.*` events commit in one transaction through the registry's outbox, so another
 * service's cache of decisions made from a token (the gateway's credentials) hears of the change
 * exactly when it commits. This process's own identity caches are cleared before and after the
 * write, as before; other replicas clear theirs on the event (`ItemEventsCacheListener`).
 */
@Injectable()
export class IdentityEventWriter {
  constructor(
    private readonly transactions: ItemTransactions,
    private readonly authentications: AuthenticationCache<Authenticated>,
    private readonly folders: FolderRepository,
    @Inject(REPLICA_STALE_MS) private readonly staleForMs: number,
  ) {}

  /**
   * Runs `write` in a transaction and records the facts it returns there; an empty list records
   * nothing (the write changed nothing).
   */
  async commit<T>(
    write: (manager: EntityManager) => Promise<{ result: T; facts: readonly IdentityFact[] }>,
  ): Promise<T> {
    this.forget();
    try {
      return await this.transactions.run(undefined, async (manager) => {
        const { result, facts } = await write(manager);
        for (const fact of facts) await this.record(manager, fact);
        return result;
      });
    } finally {
      this.forget();
    }
  }

  private async record(manager: EntityManager, fact: IdentityFact): Promise<void> {
    // The payload is checked against the contract by writeToOutbox itself.
    const contract = IDENTITY_EVENTS[fact.name] as EventContract;
    await writeToOutbox(
      manager,
      contract,
      { ...fact.event, at: new Date().toISOString(), stale_for_ms: this.staleForMs },
      // One message per write: a relay that republishes the row is dropped by JetStream.
      { msgId: `identity:${fact.name}:${randomUUID()}` },
    );
  }

  private forget(): void {
    this.authentications.clear();
    this.folders.forgetRoles();
  }
}
