import { MeshError, type CallerIdentity, type User } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { AccessService } from '../access/access.service.js';
import { ALL_GROUP } from '../auth/authenticated.js';
import { IdentityEventWriter, type IdentityFact } from '../identity/identity-event.writer.js';
import { UserRepository, type MemberRow } from './user.repository.js';

export interface NewMember {
  readonly email: string;
  readonly username: string;
  readonly isAdmin: boolean;
}

/** Members of a workspace: every member may list them, only admins add, change or remove them. */
@Injectable()
export class UsersService {
  constructor(
    private readonly users: UserRepository,
    private readonly access: AccessService,
    private readonly events: IdentityEventWriter,
  ) {}

  whoami(identity: CallerIdentity): CallerIdentity {
    return identity;
  }

  async list(identity: CallerIdentity): Promise<User[]> {
    this.access.assertScope(identity, 'users', 'read');
    return (await this.users.list(identity.workspace)).map(toUser);
  }

  async get(identity: CallerIdentity, username: string): Promise<User> {
    this.access.assertScope(identity, 'users', 'read', `u/${username}`);
    return toUser(await this.existing(identity.workspace, username));
  }

  async add(identity: CallerIdentity, member: NewMember): Promise<User> {
    this.access.assertScope(identity, 'users', 'write', `u/${member.username}`);
    this.access.assertAdmin(identity, 'add users');
    const email = member.email.toLowerCase();
    const taken = await this.users.conflictOf(identity.workspace, email, member.username);
    if (taken) {
      const value = taken === 'email' ? email : member.username;
      throw new MeshError(
        'CONFLICT',
        `${taken} "${value}" is already a member of workspace "${identity.workspace}"`,
      );
    }
    await this.events.commit(async (manager) => {
      await this.users.add(
        { workspaceId: identity.workspace, username: member.username, email, isAdmin: member.isAdmin },
        manager,
      );
      return { result: undefined, facts: [memberFact(identity, member.username, 'added')] };
    });
    return toUser(await this.existing(identity.workspace, member.username));
  }

  async setAdmin(identity: CallerIdentity, username: string, isAdmin: boolean): Promise<User> {
    this.access.assertScope(identity, 'users', 'write', `u/${username}`);
    this.access.assertAdmin(identity, 'change users');
    await this.existing(identity.workspace, username);
    if (username === identity.username && !isAdmin) {
      throw new MeshError('CONFLICT', 'an admin cannot take away their own admin role (ask another admin)');
    }
    await this.events.commit(async (manager) => {
      await this.users.setAdmin(identity.workspace, username, isAdmin, manager);
      return { result: undefined, facts: [memberFact(identity, username, 'admin_changed')] };
    });
    return toUser(await this.existing(identity.workspace, username));
  }

  async remove(identity: CallerIdentity, username: string): Promise<{ done: true }> {
    this.access.assertScope(identity, 'users', 'write', `u/${username}`);
    this.access.assertAdmin(identity, 'remove users');
    await this.existing(identity.workspace, username);
    if (username === identity.username)
      throw new MeshError('CONFLICT', 'an admin cannot remove themselves (ask another admin)');
    return this.events.commit(async (manager) => {
      await this.users.remove(identity.workspace, username, manager);
      return { result: { done: true as const }, facts: [memberFact(identity, username, 'removed')] };
    });
  }

  private async existing(workspace: string, username: string): Promise<MemberRow> {
    const row = await this.users.find(workspace, username);
    if (!row)
      throw new MeshError('NOT_FOUND', `user "${username}" not found in workspace "${workspace}"`, {
        username,
      });
    return row;
  }
}

function memberFact(
  identity: CallerIdentity,
  username: string,
  change: 'added' | 'removed' | 'admin_changed',
): IdentityFact {
  return {
    name: 'memberChanged',
    event: { workspace: identity.workspace, username, change, by: identity.username },
  };
}

function toUser(row: MemberRow): User {
  return {
    username: row.username,
    email: row.email,
    isAdmin: row.isAdmin,
    groups: [ALL_GROUP, ...row.groups.filter((g) => g !== ALL_GROUP)],
    createdAt: row.createdAt.toISOString(),
  };
}
