import { MeshError, type CallerIdentity, type Group } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { AccessService } from '../access/access.service.js';
import { ALL_GROUP } from '../auth/authenticated.js';
import { IdentityEventWriter, type IdentityFact } from '../identity/identity-event.writer.js';
import { UserRepository } from '../users/user.repository.js';
import { GroupRepository, type GroupRow } from './group.repository.js';

/**
 * Groups of a workspace: every member may see them, only admins change them. `all` is built in:
 * every member belongs to it, so it is neither stored nor created.
 */
@Injectable()
export class GroupsService {
  constructor(
    private readonly groups: GroupRepository,
    private readonly users: UserRepository,
    private readonly access: AccessService,
    private readonly events: IdentityEventWriter,
  ) {}

  async list(identity: CallerIdentity): Promise<Group[]> {
    this.access.assertScope(identity, 'groups', 'read');
    return (await this.groups.list(identity.workspace)).map(toGroup);
  }

  async get(identity: CallerIdentity, name: string): Promise<Group> {
    this.access.assertScope(identity, 'groups', 'read', `g/${name}`);
    return toGroup(await this.existing(identity.workspace, name));
  }

  async create(identity: CallerIdentity, name: string, summary: string | undefined): Promise<Group> {
    this.access.assertScope(identity, 'groups', 'write', `g/${name}`);
    this.access.assertAdmin(identity, 'create groups');
    if (name === ALL_GROUP)
      throw new MeshError('CONFLICT', `group "${ALL_GROUP}" is built in: every member belongs to it`);
    await this.events.commit(async (manager) => {
      if (!(await this.groups.insert(identity.workspace, name, summary ?? null, manager))) {
        throw new MeshError('CONFLICT', `group "${name}" already exists`, { name });
      }
      const event = {
        workspace: identity.workspace,
        group: name,
        change: 'created' as const,
        by: identity.username,
      };
      return { result: undefined, facts: [{ name: 'groupChanged', event }] };
    });
    return toGroup(await this.existing(identity.workspace, name));
  }

  async delete(identity: CallerIdentity, name: string): Promise<{ done: true }> {
    await this.assertAdminWrite(identity, name, 'delete groups');
    return this.events.commit(async (manager) => {
      await this.groups.delete(identity.workspace, name, manager);
      const event = {
        workspace: identity.workspace,
        group: name,
        change: 'deleted' as const,
        by: identity.username,
      };
      return { result: { done: true as const }, facts: [{ name: 'groupChanged', event }] };
    });
  }

  async addMember(identity: CallerIdentity, name: string, username: string): Promise<Group> {
    await this.assertAdminWrite(identity, name, 'change group members');
    if (!(await this.users.find(identity.workspace, username))) {
      throw new MeshError('NOT_FOUND', `user "${username}" not found in workspace "${identity.workspace}"`, {
        username,
      });
    }
    await this.events.commit(async (manager) => {
      const added = await this.groups.addMember(identity.workspace, name, username, manager);
      return { result: undefined, facts: added ? [this.membership(identity, name, username)] : [] };
    });
    return toGroup(await this.existing(identity.workspace, name));
  }

  async removeMember(identity: CallerIdentity, name: string, username: string): Promise<Group> {
    await this.assertAdminWrite(identity, name, 'change group members');
    await this.events.commit(async (manager) => {
      const removed = await this.groups.removeMember(identity.workspace, name, username, manager);
      return { result: undefined, facts: removed ? [this.membership(identity, name, username)] : [] };
    });
    return toGroup(await this.existing(identity.workspace, name));
  }

  private membership(identity: CallerIdentity, group: string, username: string): IdentityFact {
    return {
      name: 'memberChanged',
      event: {
        workspace: identity.workspace,
        username,
        change: 'groups_changed',
        group,
        by: identity.username,
      },
    };
  }

  private async assertAdminWrite(identity: CallerIdentity, name: string, what: string): Promise<void> {
    this.access.assertScope(identity, 'groups', 'write', `g/${name}`);
    await this.existing(identity.workspace, name);
    this.access.assertAdmin(identity, what);
  }

  private async existing(workspace: string, name: string): Promise<GroupRow> {
    const row = await this.groups.find(workspace, name);
    if (!row) throw new MeshError('NOT_FOUND', `group "${name}" not found`, { name });
    return row;
  }
}

function toGroup(row: GroupRow): Group {
  return {
    name: row.name,
    summary: row.summary,
    members: row.members,
    createdAt: row.createdAt.toISOString(),
  };
}
