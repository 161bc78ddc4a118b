import {
  MeshError,
  scopesAllow,
  type CallerIdentity,
  type Draft,
  type DraftItemKind,
  type DraftRef,
  type DraftSummary,
} from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { AccessService } from '../access/access.service.js';
import { assertDraftOwner, draftNotFound, itemDomain } from './draft-access.util.js';
import type { DraftEntity } from './draft.entity.js';
import { toDraft, toDraftSummary } from './draft.mapper.js';
import { DraftRepository } from './draft.repository.js';

/**
 * A user's drafts: saved (an upsert, as often as the editor likes), listed for review, read,
 * discarded. Deploying one is `DeployDraftUseCase`.
 */
@Injectable()
export class DraftsService {
  constructor(
    private readonly access: AccessService,
    private readonly drafts: DraftRepository,
  ) {}

  /** Whoever may write (or create) the item may keep a draft of it. */
  async save(
    identity: CallerIdentity,
    itemKind: DraftItemKind,
    path: string,
    value: Record<string, unknown>,
  ): Promise<Draft> {
    assertDraftOwner(identity);
    this.access.assertScope(identity, 'drafts', 'write', path);
    await this.access.assertCanCreate(identity, path, { domain: itemDomain(itemKind), action: 'write' });
    return toDraft(
      await this.drafts.upsert(
        { workspace: identity.workspace, itemKind, path, username: identity.username },
        value,
      ),
    );
  }

  /** The caller's own drafts of items it may still read, most recently saved first. */
  async list(identity: CallerIdentity, itemKind?: DraftItemKind): Promise<DraftSummary[]> {
    this.access.assertScope(identity, 'drafts', 'read');
    const rows = await this.drafts.list(identity.workspace, identity.username, itemKind);
    const readable = await this.readableFilter(identity);
    return rows.filter((row) => readable(row)).map(toDraftSummary);
  }

  /**
   * The read gate of a draft, also for a preview job that carries only the draft's id: only the
   * draft's own user (directly, or a job running on their behalf) who can still read the item's
   * path gets it. To anyone else, an admin included, the draft does not exist: nobody who can read
   * a preview job learns an agent's prompt and tools they could not read.
   */
  async get(identity: CallerIdentity, ref: DraftRef): Promise<Draft> {
    const row =
      'id' in ref
        ? await this.drafts.findById(identity.workspace, ref.id)
        : await this.drafts.find({
            workspace: identity.workspace,
            itemKind: ref.item_kind,
            path: ref.path,
            username: ref.username ?? identity.username,
          });
    if (!row || !(await this.mayRead(identity, row))) throw notFound(identity, ref);
    return toDraft(row);
  }

  /** Drops the caller's draft; the item itself is untouched. */
  async discard(
    identity: CallerIdentity,
    itemKind: DraftItemKind,
    path: string,
  ): Promise<{ discarded: true }> {
    this.access.assertScope(identity, 'drafts', 'write', path);
    const removed = await this.drafts.delete({
      workspace: identity.workspace,
      itemKind,
      path,
      username: identity.username,
    });
    if (!removed) throw draftNotFound(itemKind, path, identity.username);
    return { discarded: true };
  }

  private async mayRead(identity: CallerIdentity, row: DraftEntity): Promise<boolean> {
    return (
      row.username === identity.username &&
      scopesAllow(identity.scopes, { domain: 'drafts', action: 'read', path: row.path }) &&
      (await this.access.canRead(identity, row.path, itemDomain(row.itemKind)))
    );
  }

  private async readableFilter(identity: CallerIdentity): Promise<(row: DraftEntity) => boolean> {
    const [resources, scripts, flows] = await Promise.all([
      this.access.readFilter(identity, 'resources'),
      this.access.readFilter(identity, 'scripts'),
      this.access.readFilter(identity, 'flows'),
    ]);
    const byKind = { resource: resources, script: scripts, flow: flows };
    return (row) =>
      byKind[row.itemKind](row.path) &&
      scopesAllow(identity.scopes, { domain: 'drafts', action: 'read', path: row.path });
  }
}

function notFound(identity: CallerIdentity, ref: DraftRef): MeshError {
  if ('id' in ref) return new MeshError('NOT_FOUND', `draft ${ref.id} not found`, { id: ref.id });
  return draftNotFound(ref.item_kind, ref.path, ref.username ?? identity.username);
}
