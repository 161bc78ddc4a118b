import type { Actor, CallerIdentity } from '@flowmesh/contracts';

/**
 * Who is calling, as the registry resolved their bearer token in the route's workspace, and the
 * token itself: the engine acts as this actor when it reads flows or issues the run's job token.
 */
export interface Caller {
  readonly identity: CallerIdentity;
  readonly actor: Actor;
}

/** The `actor` and `workspace` of a contract request made as `caller`. */
export function requestFieldsOf(caller: Caller): { readonly actor: Actor; readonly workspace: string } {
  return { actor: caller.actor, workspace: caller.identity.workspace };
}
