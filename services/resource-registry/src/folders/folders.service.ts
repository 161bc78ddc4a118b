import { MeshError, type CallerIdentity, type Folder } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { folderRole, principalsOf, scopeAllows } from '../access/access-policy.js';
import { AccessService } from '../access/access.service.js';
import { IdentityEventWriter, type IdentityFact } from '../identity/identity-event.writer.js';
import type { FolderEntity } from './folder.entity.js';
import { FolderPrincipalsValidator, type FolderRoleLists } from './folder-principals.validator.js';
import { FolderRepository } from './folder.repository.js';

export interface FolderChanges extends FolderRoleLists {
  readonly summary?: string | null;
}

/**
 * Folders: seen by whoever holds a role in them (and admins), created by any member (who becomes
 * an owner), changed and deleted by owners and admins. A folder the caller may not see answers
 * exactly as one that does not exist.
 */
@Injectable()
export class FoldersService {
  constructor(
    private readonly folders: FolderRepository,
    private readonly principals: FolderPrincipalsValidator,
    private readonly access: AccessService,
    private readonly events: IdentityEventWriter,
  ) {}

  async list(identity: CallerIdentity): Promise<Folder[]> {
    this.access.assertScope(identity, 'folders', 'read');
    const all = await this.folders.list(identity.workspace);
    return all.filter((folder) => this.visible(identity, folder)).map(toFolder);
  }

  async get(identity: CallerIdentity, name: string): Promise<Folder> {
    return toFolder(await this.readable(identity, name));
  }

  async create(identity: CallerIdentity, name: string, changes: FolderChanges): Promise<Folder> {
    this.access.assertScope(identity, 'folders', 'write', `f/${name}`);
    // Checked as given, so an error's index points into the caller's own list.
    await this.principals.assertExist(identity.workspace, changes);
    const creator = principalsOf(identity)[0];
    const owners = unique([...(creator ? [creator] : []), ...(changes.owners ?? [])]);
    const roles = { owners, writers: unique(changes.writers ?? []), readers: unique(changes.readers ?? []) };
    await this.events.commit(async (manager) => {
      const inserted = await this.folders.insert(
        { workspaceId: identity.workspace, name, summary: changes.summary ?? null, ...roles },
        manager,
      );
      if (!inserted) throw new MeshError('CONFLICT', `folder "${name}" already exists`, { name });
      return { result: undefined, facts: [folderFact(identity, name, 'created')] };
    });
    return this.get(identity, name);
  }

  async update(identity: CallerIdentity, name: string, changes: FolderChanges): Promise<Folder> {
    const folder = await this.ownable(identity, name);
    await this.principals.assertExist(identity.workspace, changes);
    if (changes.summary !== undefined) folder.summary = changes.summary;
    if (changes.owners) folder.owners = unique(changes.owners);
    if (changes.writers) folder.writers = unique(changes.writers);
    if (changes.readers) folder.readers = unique(changes.readers);
    const saved = await this.events.commit(async (manager) => ({
      result: await this.folders.save(folder, manager),
      facts: [folderFact(identity, name, 'updated')],
    }));
    return toFolder(saved);
  }

  async delete(identity: CallerIdentity, name: string): Promise<{ done: true }> {
    await this.ownable(identity, name);
    return this.events.commit(async (manager) => {
      await this.folders.delete(identity.workspace, name, manager);
      return { result: { done: true as const }, facts: [folderFact(identity, name, 'deleted')] };
    });
  }

  private visible(identity: CallerIdentity, folder: FolderEntity): boolean {
    const seen = identity.isAdmin || folderRole(identity, folder) !== undefined;
    return seen && scopeAllows(identity, { domain: 'folders', action: 'read' }, `f/${folder.name}`);
  }

  private async readable(identity: CallerIdentity, name: string): Promise<FolderEntity> {
    const folder = await this.folders.find(identity.workspace, name);
    if (!folder || !this.visible(identity, folder))
      throw new MeshError('NOT_FOUND', `folder "${name}" not found`, { name });
    return folder;
  }

  /** Owners and admins manage a folder; other members who see it are refused. */
  private async ownable(identity: CallerIdentity, name: string): Promise<FolderEntity> {
    const folder = await this.readable(identity, name);
    if (!identity.isAdmin && folderRole(identity, folder) !== 'owner') {
      throw new MeshError(
        'PERMISSION_DENIED',
        `only owners of folder "${name}" and admins may change or delete it`,
      );
    }
    this.access.assertScope(identity, 'folders', 'write', `f/${name}`);
    return folder;
  }
}

function folderFact(
  identity: CallerIdentity,
  folder: string,
  change: 'created' | 'updated' | 'deleted',
): IdentityFact {
  return {
    name: 'folderChanged',
    event: { workspace: identity.workspace, folder, change, by: identity.username },
  };
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

function toFolder(folder: FolderEntity): Folder {
  return {
    name: folder.name,
    summary: folder.summary,
    owners: folder.owners,
    writers: folder.writers,
    readers: folder.readers,
    createdAt: folder.createdAt.toISOString(),
  };
}
