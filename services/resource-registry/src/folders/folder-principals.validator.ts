import { MeshError, type ValidationIssue } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { ALL_GROUP } from '../auth/authenticated.js';
import { GroupRepository } from '../groups/group.repository.js';
import { UserRepository } from '../users/user.repository.js';

export interface FolderRoleLists {
  readonly owners?: readonly string[];
  readonly writers?: readonly string[];
  readonly readers?: readonly string[];
}

/** Every principal named in a folder's roles must exist in the workspace: a typo would share nothing. */
@Injectable()
export class FolderPrincipalsValidator {
  constructor(
    private readonly users: UserRepository,
    private readonly groups: GroupRepository,
  ) {}

  async assertExist(workspace: string, roles: FolderRoleLists): Promise<void> {
    const issues: ValidationIssue[] = [];
    for (const role of ['owners', 'writers', 'readers'] as const) {
      for (const [index, principal] of (roles[role] ?? []).entries()) {
        if (!(await this.exists(workspace, principal))) {
          const kind = principal.startsWith('u/') ? 'user' : 'group';
          issues.push({
            path: `${role}[${index}]`,
            message: `${kind} "${principal.slice(2)}" not found in workspace "${workspace}"`,
          });
        }
      }
    }
    const first = issues[0];
    if (first) {
      const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
      throw new MeshError(
        'VALIDATION_FAILED',
        `invalid folder roles: ${first.path}: ${first.message}${more}`,
        { issues },
      );
    }
  }

  private async exists(workspace: string, principal: string): Promise<boolean> {
    const name = principal.slice(2);
    if (principal.startsWith('u/')) return (await this.users.find(workspace, name)) !== undefined;
    return name === ALL_GROUP || this.groups.exists(workspace, name);
  }
}
