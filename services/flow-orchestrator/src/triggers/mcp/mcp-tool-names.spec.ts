import { describe, expect, it } from 'vitest';
import { TOOL_NAME, toolNames } from './mcp-tool-names.js';

describe('MCP tool names', () => {
  it('are Windmill’s where they fit: s-/f- and the path with _ for /', () => {
    const names = toolNames([
      { kind: 'script', path: 'u/admin/echo' },
      { kind: 'flow', path: 'f/ops/nightly.v2' },
    ]);
    expect([...names.keys()]).toEqual(['s-u_admin_echo', 'f-f_ops_nightly_v2']);
    expect(names.get('s-u_admin_echo')).toEqual({ kind: 'script', path: 'u/admin/echo' });
  });

  it('stay unique and within 64 characters, mapping back to each item', () => {
    const long = `f/team/${'x'.repeat(80)}`;
    const items = [
      { kind: 'script' as const, path: 'f/a_b/c' },
      { kind: 'script' as const, path: 'f/a/b_c' },
      { kind: 'flow' as const, path: 'f/a/b_c' },
      { kind: 'script' as const, path: long },
      { kind: 'script' as const, path: `${long}y` },
    ];
    const names = toolNames(items);
    expect(names.size).toBe(items.length);
    for (const name of names.keys()) expect(name).toMatch(TOOL_NAME);
    expect([...names.values()]).toEqual(expect.arrayContaining(items));
    // The flow's name is its own (f- prefix); the two scripts sharing a name each carry a digest.
    expect(names.get('f-f_a_b_c')).toEqual({ kind: 'flow', path: 'f/a/b_c' });
    expect([...names.keys()].filter((name) => name.startsWith('s-f_a_b_c-'))).toHaveLength(2);
  });

  it('do not depend on the other items once a name carries a digest', () => {
    const item = { kind: 'script' as const, path: `u/admin/${'y'.repeat(70)}` };
    const alone = [...toolNames([item]).keys()];
    const among = [...toolNames([{ kind: 'flow', path: 'u/admin/z' }, item]).entries()]
      .filter(([, it]) => it === item)
      .map(([name]) => name);
    expect(among).toEqual(alone);
  });
});
