import { z } from 'zod';
import { CallerIdentitySchema } from '../registry/identity.schema.js';

const identity = CallerIdentitySchema.shape;

/**
 * `GET users/whoami`: the caller, snake_case as Windmill's. The registry answers it, the CLI
 * and the end-to-end tests read it.
 */
export const WhoamiAnswerSchema = z.object({
  workspace_id: identity.workspace,
  kind: identity.kind,
  username: identity.username,
  email: identity.email,
  is_admin: identity.isAdmin,
  groups: identity.groups,
  scopes: identity.scopes,
  job_id: z.string().optional(),
  on_behalf_of: z.string().optional(),
});
export type WhoamiAnswer = z.infer<typeof WhoamiAnswerSchema>;
