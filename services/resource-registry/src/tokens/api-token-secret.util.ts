import { randomBytes } from 'node:crypto';
import { API_TOKEN_PREFIX } from '@flowmesh/contracts';

// Shared with the llm-gateway, which names a token's budget by the same prefix.
export { API_TOKEN_PREFIX, apiTokenPrefix, hashApiToken } from '@flowmesh/contracts';

/** A new API token: 256 random bits. */
export function generateApiToken(): string {
  return `${API_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
}
