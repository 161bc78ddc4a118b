import { MeshError, nameProblem, scopesAllow, type Workspace } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import type { AccountIdentity } from '../auth/authenticated.js';
import { UserRepository } from '../users/user.repository.js';
import type { WorkspaceEntity } from './workspace.entity.js';
import { WorkspaceRepository } from './workspace.repository.js';

export interface NewWorkspace {
  readonly id: string;
  readonly name: string;
  /** The creator's user name in it; default: the one they have elsewhere, else their email's local part. */
  readonly username?: string;
}

/**
 * Workspaces: an account sees those it is a member of (a workspace-bound token: that one only);
 * super admins create them, with a token valid everywhere, and become their admin.
 */
@Injectable()
export class WorkspacesService {
  constructor(
    private readonly workspaces: WorkspaceRepository,
    private readonly users: UserRepository,
  ) {}

  async list(account: AccountIdentity): Promise<Workspace[]> {
    assertScope(account, 'read');
    const mine = await this.workspaces.listForEmail(account.email);
    return mine.filter((w) => account.workspace === undefined || w.id === account.workspace).map(toWorkspace);
  }

  async create(account: AccountIdentity, request: NewWorkspace): Promise<Workspace> {
    assertScope(account, 'write');
    if (!account.isSuperAdmin) {
      throw new MeshError('PERMISSION_DENIED', 'only super admins may create workspaces');
    }
    if (account.workspace !== undefined) {
      throw new MeshError(
        'PERMISSION_DENIED',
        `a token of workspace "${account.workspace}" cannot create workspaces`,
      );
    }
    const username =
      request.username ?? (await this.users.anyUsernameOf(account.email)) ?? localPart(account.email);
    await this.workspaces.transaction(async (tx) => {
      if (!(await this.workspaces.insert({ id: request.id, name: request.name }, tx))) {
        throw new MeshError('CONFLICT', `workspace "${request.id}" already exists`, {
          workspace: request.id,
        });
      }
      await this.users.add({ workspaceId: request.id, username, email: account.email, isAdmin: true }, tx);
    });
    const created = await this.workspaces.find(request.id);
    if (!created) throw new MeshError('INTERNAL', `workspace "${request.id}" vanished after it was created`);
    return toWorkspace(created);
  }
}

function assertScope(account: AccountIdentity, action: 'read' | 'write'): void {
  if (!scopesAllow(account.scopes, { domain: 'workspaces', action })) {
    throw new MeshError('PERMISSION_DENIED', `the token's scopes do not allow workspaces:${action}`);
  }
}

/** `ada.l@x.org` -> `ada.l`; anything a user name may not hold becomes `_`. */
function localPart(email: string): string {
  const candidate = (email.split('@')[0] ?? '').replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 64);
  return nameProblem('user', candidate) === undefined
    ? candidate
    : `user_${candidate.replace(/^[.-]+/, '')}`.slice(0, 64);
}

function toWorkspace(row: WorkspaceEntity): Workspace {
  return { id: row.id, name: row.name, createdAt: row.createdAt.toISOString() };
}
