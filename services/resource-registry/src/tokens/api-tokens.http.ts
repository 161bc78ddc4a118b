import { ScopeListSchema, UsernameSchema, type ApiToken } from '@flowmesh/contracts';
import { z } from 'zod';

/** HTTP bodies and answers of `/api/w/:workspace/tokens/...`, with Windmill's field names. */
export const CreateTokenBodySchema = z
  .object({
    label: z.string().max(200).optional(),
    /** ISO time; absent: never expires. */
    expiration: z.iso.datetime({ offset: true }).optional(),
    scopes: ScopeListSchema.optional(),
    /** Admins only: the member the token is for. */
    username: UsernameSchema.optional(),
  })
  .strict();

export const TokenPrefixSchema = z.string().min(1).max(64);

export function tokenView(token: ApiToken) {
  return {
    token_prefix: token.prefix,
    label: token.label,
    email: token.email,
    workspace_id: token.workspace,
    ...(token.scopes === undefined ? {} : { scopes: token.scopes }),
    expiration: token.expiresAt,
    created_at: token.createdAt,
  };
}
