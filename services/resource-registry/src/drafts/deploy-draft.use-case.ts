import { type CallerIdentity, type DraftItemKind } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { AccessService } from '../access/access.service.js';
import { ItemTransactions } from '../item-events/item-transactions.js';
import { assertDraftOwner, draftNotFound } from './draft-access.util.js';
import { DraftRepository } from './draft.repository.js';
import { parseItemBody } from './item-body.schemas.js';
import { UpsertItemUseCase } from './upsert-item.use-case.js';

export interface DeployedDraft {
  readonly item_kind: DraftItemKind;
  readonly path: string;
  readonly created: boolean;
  readonly version: number | null;
}

/**
 * Deploying a draft writes the item (through the items' services, so access, validation, events
 * and history apply), appends its version, and drops the draft, in one transaction. Only the
 * caller's own draft of this one item is touched: other items' drafts, and other users' drafts
 * of this item, stay as they are.
 */
@Injectable()
export class DeployDraftUseCase {
  constructor(
    private readonly access: AccessService,
    private readonly drafts: DraftRepository,
    private readonly items: UpsertItemUseCase,
    private readonly transactions: ItemTransactions,
  ) {}

  async deploy(identity: CallerIdentity, itemKind: DraftItemKind, path: string): Promise<DeployedDraft> {
    assertDraftOwner(identity);
    this.access.assertScope(identity, 'drafts', 'write', path);
    const key = { workspace: identity.workspace, itemKind, path, username: identity.username };
    return this.transactions.run(undefined, async (manager) => {
      // Locked: a save landing meanwhile waits, and is not dropped unseen with the deployed one.
      const draft = await this.drafts.findForUpdate(manager, key);
      if (!draft) throw draftNotFound(itemKind, path, identity.username);
      const item = parseItemBody(itemKind, draft.value, `draft of ${itemKind} ${path}`);
      const written = await this.items.upsert(identity, path, item, manager);
      await this.drafts.delete(key, manager);
      return { item_kind: itemKind, path, ...written };
    });
  }
}
