import type { CallerIdentity } from '@flowmesh/contracts';

import { AuthenticationCache } from '@flowmesh/http';
/** Every member belongs to this group; a folder shared with `g/all` is shared with the workspace. */
export const ALL_GROUP = 'all';

/** An identity and when the token that proved it stops being valid. */
export interface Authenticated {
  readonly identity: CallerIdentity;
  /** Null: never (an API token without expiry). */
  readonly expiresAt: Date | null;
}

/**
 * Successful authentications, kept for a moment: every registry request authenticates, and most
 * come in bursts from the same job or user. Writes that change who someone is clear it at once in
 * this process, identity events from another replica shortly after (`ItemEventsCacheListener`);
 * the time to live (`FLOWMESH_AUTH_CACHE_MS`, 0 turns it off) bounds a missed event, and no entry
 * outlives its token.
 */
export function authenticationCache(ttlMs: number): AuthenticationCache<Authenticated> {
  return new AuthenticationCache<Authenticated>(ttlMs, {
    expiresAtMs: ({ expiresAt }) => expiresAt?.getTime(),
  });
}

/** Who an API token belongs to, outside any workspace (listing workspaces, creating one). */
export interface AccountIdentity {
  readonly email: string;
  readonly isSuperAdmin: boolean;
  /** Set when the token works in this workspace only. */
  readonly workspace?: string;
  readonly scopes?: string[];
}
