import type { CallerIdentity } from '@flowmesh/contracts';

/** Every member belongs to this group; a folder shared with `g/all` is shared with the workspace. */
export const ALL_GROUP = 'all';

/** An identity and when the token that proved it stops being valid. */
export interface Authenticated {
  readonly identity: CallerIdentity;
  /** Null: never (an API token without expiry). */
  readonly expiresAt: Date | null;
}

/** Who an API token belongs to, outside any workspace (listing workspaces, creating one). */
export interface AccountIdentity {
  readonly email: string;
  readonly isSuperAdmin: boolean;
  /** Set when the token works in this workspace only. */
  readonly workspace?: string;
  readonly scopes?: string[];
}
