import type { CallerIdentity } from '@flowmesh/contracts';

/** The principal a job started by `identity` acts as: a job's own principal, else `u/<user>`. */
export function principalOf(identity: CallerIdentity): string {
  if (identity.kind === 'job' && identity.onBehalfOf) return identity.onBehalfOf;
  return identity.username.includes('/') ? identity.username : `u/${identity.username}`;
}

/** Who a job was created by, as Windmill names it: the user name (a job's principal for a job token). */
export function creatorOf(identity: CallerIdentity): string {
  return identity.kind === 'job' ? (identity.onBehalfOf ?? identity.username) : identity.username;
}
