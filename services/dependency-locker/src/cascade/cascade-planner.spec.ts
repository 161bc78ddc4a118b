import type { EdgeKind, LockOwnerKind } from '@flowmesh/contracts';
import { describe, expect, it } from 'vitest';
import { dependencyEdge, planCascade, type DependencyEdge } from './cascade-planner.js';

const owner = (key: string) => {
  const [kind, path] = key.split(':') as [LockOwnerKind, string];
  return { kind, path };
};
const edge = (
  importer: `${LockOwnerKind}:${string}`,
  imported: `${LockOwnerKind}:${string}`,
  edgeKind: EdgeKind = 'relative_import',
  node = '',
): DependencyEdge => dependencyEdge(owner(importer), node, edgeKind, owner(imported));
const root = { kind: 'script' as const, path: 'f/lib/a' };
const brief = (targets: ReturnType<typeof planCascade>) =>
  targets.map((t) => `${t.kind}:${t.path} ${t.action} d${t.depth} [${t.nodeIds.join(',')}]`);

describe('planCascade', () => {
  it('relocks a diamond bottom once, after both sides (Windmill #6055)', () => {
    const plan = planCascade(root, [
      edge('script:f/lib/b', 'script:f/lib/a'),
      edge('script:f/lib/c', 'script:f/lib/a'),
      edge('script:f/lib/d', 'script:f/lib/b'),
      edge('script:f/lib/d', 'script:f/lib/c'),
    ]);
    expect(brief(plan)).toEqual([
      'script:f/lib/b relock d1 []',
      'script:f/lib/c relock d1 []',
      'script:f/lib/d relock d2 []',
    ]);
  });

  it('orders by the longest path, so a dependent runs after everything it imports in the cascade', () => {
    const plan = planCascade(root, [
      edge('script:f/lib/b', 'script:f/lib/a'),
      edge('script:f/lib/c', 'script:f/lib/b'),
      edge('script:f/lib/d', 'script:f/lib/a'),
      edge('script:f/lib/d', 'script:f/lib/c'),
    ]);
    expect(plan.find((t) => t.path === 'f/lib/d')?.depth).toBe(3);
  });

  it('walks a cycle once and never plans the root again', () => {
    const plan = planCascade(root, [
      edge('script:f/lib/b', 'script:f/lib/a'),
      edge('script:f/lib/c', 'script:f/lib/b'),
      edge('script:f/lib/b', 'script:f/lib/c'),
      edge('script:f/lib/a', 'script:f/lib/c'),
    ]);
    expect(plan.map((t) => t.path).sort()).toEqual(['f/lib/b', 'f/lib/c']);
    expect(plan.every((t) => t.depth >= 1)).toBe(true);
  });

  it('merges the node ids of one owner and keeps kinds apart (a script and a flow may share a path)', () => {
    const plan = planCascade(root, [
      edge('flow:f/lib/b', 'script:f/lib/a', 'relative_import', 's1'),
      edge('flow:f/lib/b', 'script:f/lib/a', 'relative_import', 's2'),
      edge('script:f/lib/b', 'script:f/lib/a'),
    ]);
    expect(brief(plan)).toEqual(['flow:f/lib/b relock d1 [s1,s2]', 'script:f/lib/b relock d1 []']);
  });

  it('revalidates an agent using the script as a tool; the flows linking it are its own job to plan', () => {
    const edges = [
      edge('agent:f/ai/helper', 'script:f/lib/a', 'path_tool', 'lookup'),
      edge('flow:f/app/chat', 'agent:f/ai/helper', 'linked_agent', 'ask'),
      edge('flow:f/app/nightly', 'flow:f/app/chat', 'path_step', 'run_chat'),
    ];
    // The agent's tools are checked first: a misfit stops the cascade there.
    expect(brief(planCascade(root, edges))).toEqual(['agent:f/ai/helper revalidate d1 [lookup]']);
    // They fit: the agent plans its flows; the flow checks its tool_inputs, then plans what runs it.
    const visited = new Set(['script:f/lib/a', 'agent:f/ai/helper']);
    const fromAgent = planCascade(owner('agent:f/ai/helper'), edges, visited);
    expect(brief(fromAgent)).toEqual(['flow:f/app/chat revalidate d1 [ask]']);
    expect(fromAgent[0]).toMatchObject({ becauseOf: 'agent:f/ai/helper', edgeKind: 'linked_agent' });
    visited.add('flow:f/app/chat');
    expect(brief(planCascade(owner('flow:f/app/chat'), edges, visited))).toEqual([
      'flow:f/app/nightly revalidate d1 [run_chat]',
    ]);
  });

  it('relocks an agent whose tool imports the script, and skips owners an earlier plan covered', () => {
    const edges = [
      edge('agent:f/ai/helper', 'script:f/lib/a', 'relative_import', 'lookup'),
      edge('flow:f/app/chat', 'agent:f/ai/helper', 'linked_agent', 'ask'),
    ];
    expect(brief(planCascade(root, edges))).toEqual([
      'agent:f/ai/helper relock d1 [lookup]',
      'flow:f/app/chat revalidate d2 [ask]',
    ]);
    expect(planCascade(root, edges, new Set(['agent:f/ai/helper']))).toEqual([]);
  });

  it('an agent importing the script and running it as a tool is relocked and gates its flows', () => {
    const edges = [
      edge('agent:f/ai/helper', 'script:f/lib/a', 'relative_import', 'shout'),
      edge('agent:f/ai/helper', 'script:f/lib/a', 'path_tool', 'lookup'),
      edge('flow:f/app/chat', 'agent:f/ai/helper', 'linked_agent', 'ask'),
      edge('flow:f/app/fmt', 'script:f/lib/a', 'relative_import', 'fmt'),
      edge('flow:f/app/fmt', 'agent:f/ai/helper', 'linked_agent', 'ask'),
    ];
    // A flow that imports the script itself is relocked in the cascade still (and checks its tool_inputs then).
    expect(brief(planCascade(root, edges))).toEqual([
      'agent:f/ai/helper relock d1 [shout]',
      'flow:f/app/fmt relock d1 [fmt]',
    ]);
  });

  it('plans nothing for an owner nothing depends on', () => {
    expect(planCascade(root, [edge('script:f/lib/b', 'script:f/lib/x')])).toEqual([]);
  });
});
