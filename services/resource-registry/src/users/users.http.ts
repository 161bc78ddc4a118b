import type { CallerIdentity, User, WhoamiAnswer } from '@flowmesh/contracts';
import { UsernameSchema } from '@flowmesh/contracts';
import { z } from 'zod';

/** HTTP bodies and answers of `/api/w/:workspace/users/...`, snake_case as Windmill's. */
export const AddUserBodySchema = z
  .object({ email: z.email().max(254), username: UsernameSchema, is_admin: z.boolean().default(false) })
  .strict();
export const UpdateUserBodySchema = z.object({ is_admin: z.boolean() }).strict();

export function userView(user: User) {
  return {
    username: user.username,
    email: user.email,
    is_admin: user.isAdmin,
    groups: user.groups,
    created_at: user.createdAt,
  };
}

export function whoamiView(identity: CallerIdentity): WhoamiAnswer {
  return {
    workspace_id: identity.workspace,
    kind: identity.kind,
    username: identity.username,
    email: identity.email,
    is_admin: identity.isAdmin,
    groups: identity.groups,
    ...(identity.scopes === undefined ? {} : { scopes: identity.scopes }),
    ...(identity.jobId === undefined ? {} : { job_id: identity.jobId, on_behalf_of: identity.onBehalfOf }),
  };
}
