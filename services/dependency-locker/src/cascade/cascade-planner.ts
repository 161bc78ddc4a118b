import type { EdgeKind, LockOwnerKind } from '@flowmesh/contracts';

/** One dependency edge: `importer` (one of its nodes) depends on `imported`. */
export interface DependencyEdge {
  readonly importerKind: LockOwnerKind;
  readonly importerPath: string;
  readonly importerNodeId: string;
  readonly edgeKind: EdgeKind;
  readonly importedKind: LockOwnerKind;
  readonly importedPath: string;
  /** The imported owner's lock hash when the importer was last locked. */
  readonly importedLockSha256: string | null;
}

export interface CascadeTarget {
  readonly kind: LockOwnerKind;
  readonly path: string;
  /**
   * `relock`: its code imports (directly or not) what changed, so its lock may change.
   * `revalidate`: it runs what changed by path (a tool, a step, a linked agent), which keeps its
   * own lock: it is checked again, not locked.
   */
  readonly action: 'relock' | 'revalidate';
  /** For `relock`, the nodes to lock again; for `revalidate`, the nodes that reference. */
  readonly nodeIds: string[];
  /** Runs after every target of a smaller depth (longest path from the root; cycles last). */
  readonly depth: number;
  /** The first owner found that it depends on, and through which edge. */
  readonly becauseOf: string;
  readonly edgeKind: EdgeKind;
}

/** An edge from a node of `importer` to `imported`, with no imported lock hash yet. */
export function dependencyEdge(
  importer: { readonly kind: LockOwnerKind; readonly path: string },
  importerNodeId: string,
  edgeKind: EdgeKind,
  imported: { readonly kind: LockOwnerKind; readonly path: string },
): DependencyEdge {
  return {
    importerKind: importer.kind,
    importerPath: importer.path,
    importerNodeId,
    edgeKind,
    importedKind: imported.kind,
    importedPath: imported.path,
    importedLockSha256: null,
  };
}

export const ownerKey = (kind: LockOwnerKind, path: string): string => `${kind}:${path}`;

/**
 * What redeploying `root` touches: the owners that depend on it, directly or not, each once
 * (a diamond relocks its bottom once, Windmill #6055), their node ids merged, a cycle walked once
 * (`alreadyVisited` also names owners an earlier plan of the same cascade covered). The walk stops
 * at an owner that checks what it runs by path (`CHECKED_EDGES`: an agent's script tools, a flow's
 * `tool_inputs` for the agent it links): its own job plans its dependents when the check passes.
 * Pure and linear in the edges it walks.
 */
export function planCascade(
  root: { readonly kind: LockOwnerKind; readonly path: string },
  edges: readonly DependencyEdge[],
  alreadyVisited: ReadonlySet<string> = new Set(),
): CascadeTarget[] {
  const byImported = new Map<string, DependencyEdge[]>();
  for (const edge of edges) {
    const key = ownerKey(edge.importedKind, edge.importedPath);
    let list = byImported.get(key);
    if (!list) byImported.set(key, (list = []));
    list.push(edge);
  }

  const rootKey = ownerKey(root.kind, root.path);
  interface Building {
    kind: LockOwnerKind;
    path: string;
    relock: Set<string>;
    refs: Set<string>;
    becauseOf: string;
    edgeKind: EdgeKind;
  }
  // Owners with a check to pass (an agent whose tool runs a script of the closure by path, a flow
  // linking an agent of it): what depends on them is theirs to plan once it passes, so a misfit
  // stops the cascade there. Found over the whole closure, so the order of the walk does not matter.
  const gated = checkedOwners(rootKey, byImported, alreadyVisited);
  const found = new Map<string, Building>();
  // Edges inside the closure, importer <- imported, for the depths.
  const inside: Array<[from: string, to: string]> = [];
  const queue: string[] = [rootKey];
  const queued = new Set<string>([rootKey]);
  for (let head = 0; head < queue.length; head++) {
    const importedKey = queue[head];
    if (head > 0 && gated.has(importedKey)) continue;
    for (const edge of byImported.get(importedKey) ?? []) {
      const key = ownerKey(edge.importerKind, edge.importerPath);
      if (key === rootKey || alreadyVisited.has(key)) continue;
      let target = found.get(key);
      if (!target) {
        target = {
          kind: edge.importerKind,
          path: edge.importerPath,
          relock: new Set(),
          refs: new Set(),
          becauseOf: importedKey,
          edgeKind: edge.edgeKind,
        };
        found.set(key, target);
      }
      (edge.edgeKind === 'relative_import' ? target.relock : target.refs).add(edge.importerNodeId);
      inside.push([importedKey, key]);
      if (!queued.has(key)) {
        queued.add(key);
        queue.push(key);
      }
    }
  }

  const depth = longestDepths(rootKey, [...found.keys()], inside);
  return [...found.entries()]
    .map(([key, t]) => ({
      kind: t.kind,
      path: t.path,
      action: t.relock.size > 0 ? ('relock' as const) : ('revalidate' as const),
      nodeIds: [...(t.relock.size > 0 ? t.relock : t.refs)].sort(),
      depth: depth.get(key)!,
      becauseOf: t.becauseOf,
      edgeKind: t.edgeKind,
    }))
    .sort((a, b) => a.depth - b.depth || a.kind.localeCompare(b.kind) || a.path.localeCompare(b.path));
}

/** Edges whose importer checks what it runs by path against what changed, not only re-locks. */
export const CHECKED_EDGES: ReadonlySet<EdgeKind> = new Set<EdgeKind>(['path_tool', 'linked_agent']);

/** The owners of the closure of `rootKey` that depend on a member of it through a checked edge. */
function checkedOwners(
  rootKey: string,
  byImported: ReadonlyMap<string, readonly DependencyEdge[]>,
  alreadyVisited: ReadonlySet<string>,
): Set<string> {
  const checked = new Set<string>();
  const queue = [rootKey];
  const queued = new Set(queue);
  for (let head = 0; head < queue.length; head++)
    for (const edge of byImported.get(queue[head]) ?? []) {
      const key = ownerKey(edge.importerKind, edge.importerPath);
      if (key === rootKey || alreadyVisited.has(key)) continue;
      if (CHECKED_EDGES.has(edge.edgeKind)) checked.add(key);
      if (!queued.has(key)) {
        queued.add(key);
        queue.push(key);
      }
    }
  return checked;
}

/**
 * Longest distance from the root over the closure's edges (Kahn's order): a target runs after
 * everything it depends on in the cascade. Targets on a cycle get one more than the deepest other.
 */
function longestDepths(
  rootKey: string,
  keys: readonly string[],
  inside: ReadonlyArray<[string, string]>,
): Map<string, number> {
  const out = new Map<string, string[]>();
  const indegree = new Map<string, number>(keys.map((k) => [k, 0]));
  const seenPair = new Set<string>();
  for (const [from, to] of inside) {
    const pair = `${from}\u0000${to}`;
    if (seenPair.has(pair)) continue;
    seenPair.add(pair);
    let list = out.get(from);
    if (!list) out.set(from, (list = []));
    list.push(to);
    if (from !== rootKey) indegree.set(to, (indegree.get(to) ?? 0) + 1);
  }
  const depth = new Map<string, number>();
  const ready: string[] = [];
  for (const to of out.get(rootKey) ?? []) depth.set(to, 1);
  for (const key of keys) if (indegree.get(key) === 0) ready.push(key);
  let deepest = 0;
  for (let head = 0; head < ready.length; head++) {
    const key = ready[head];
    const d = depth.get(key) ?? 1;
    deepest = Math.max(deepest, d);
    for (const next of out.get(key) ?? []) {
      depth.set(next, Math.max(depth.get(next) ?? 1, d + 1));
      const left = indegree.get(next)! - 1;
      indegree.set(next, left);
      if (left === 0) ready.push(next);
    }
  }
  for (const key of keys) if (indegree.get(key)! > 0) depth.set(key, deepest + 1);
  return depth;
}
