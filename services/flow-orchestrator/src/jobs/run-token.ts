import {
  MeshError,
  runScopeCovers,
  runScopesOf,
  type CallerIdentity,
  type RunnableKind,
} from '@flowmesh/contracts';

/**
 * Whether a run started by `identity` of `path` (null: a preview, which has none) is started with
 * a run token (a token holding `jobs:run` scopes, Windmill's webhook-specific token): true when
 * its scopes cover the path (a `jobs:run:flows` scope only a flow's, `jobs:run:scripts` a script's), and the run then acts with its principal's own permissions (the
 * registry issues its job token so, given the path). A run token may start nothing else:
 * PERMISSION_DENIED for another path or a preview. Any other token: false, as before.
 */
export function startsWithRunToken(
  identity: CallerIdentity,
  path: string | null,
  runnable: RunnableKind,
): boolean {
  const runScopes = runScopesOf(identity.scopes);
  if (runScopes.length === 0) return false;
  if (path !== null && runScopeCovers(runScopes, path, runnable)) return true;
  const may = `this token may only start runs of the paths its scopes name (${runScopes.join(', ')})`;
  throw new MeshError('PERMISSION_DENIED', path === null ? `${may}, not a preview` : `${may}, not ${path}`, {
    ...(path === null ? {} : { path }),
    scopes: runScopes,
  });
}
