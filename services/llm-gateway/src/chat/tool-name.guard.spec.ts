import { describe, expect, it } from 'vitest';
import { sanitizeToolName, TOOL_NAME_PATTERN, ToolNameMap } from './tool-name.guard.js';

describe('tool-name guard', () => {
  it('keeps a valid name as it is', () => {
    expect(sanitizeToolName('get_weather')).toBe('get_weather');
    expect(sanitizeToolName('_x-1')).toBe('_x-1');
  });

  it('rewrites what some provider would reject into the one safe pattern', () => {
    for (const name of [
      'handbook.pdf',
      '1st tool',
      '-dash',
      'Company Docs',
      'a'.repeat(100),
      'tools/search',
      '.',
    ]) {
      expect(sanitizeToolName(name)).toMatch(TOOL_NAME_PATTERN);
    }
    expect(sanitizeToolName('handbook.pdf')).toBe('handbook_pdf');
    expect(sanitizeToolName('1st tool')).toBe('_1st_tool');
  });

  it('gives names with nothing usable distinct keys (two CJK names never share one)', () => {
    const first = sanitizeToolName('検索');
    const second = sanitizeToolName('翻訳');
    expect(first).toMatch(/^tool_[0-9a-f]{8}$/);
    expect(second).toMatch(/^tool_[0-9a-f]{8}$/);
    expect(first).not.toBe(second);
  });

  it('is stable: the same name gives the same key every time', () => {
    expect(sanitizeToolName('my tool.v2')).toBe(sanitizeToolName('my tool.v2'));
    expect(new ToolNameMap(['x.y', 'z']).provider('x.y')).toBe(new ToolNameMap(['z', 'x.y']).provider('x.y'));
  });

  it('never maps two caller names to one provider name, and maps every one back', () => {
    const names = ['a.b', 'a_b', 'a b', 'a/b', 'A.b', '検索', '翻訳', 'x'.repeat(80), `${'x'.repeat(80)}y`];
    const map = new ToolNameMap(names);
    const provided = names.map((name) => map.provider(name));
    expect(new Set(provided).size).toBe(names.length);
    for (const name of names) {
      expect(map.provider(name)).toMatch(TOOL_NAME_PATTERN);
      expect(map.caller(map.provider(name))).toBe(name);
    }
    // The valid one keeps its own name even though a rewrite of another would produce it.
    expect(map.provider('a_b')).toBe('a_b');
    expect(map.provider('a.b')).not.toBe('a_b');
  });

  it('is idempotent on its own output', () => {
    const map = new ToolNameMap(['handbook.pdf', '検索']);
    const again = new ToolNameMap([map.provider('handbook.pdf'), map.provider('検索')]);
    expect(again.rewrites).toBe(false);
  });

  it('passes unknown names through both ways (a model calling a tool it was not given)', () => {
    const map = new ToolNameMap(['a.b']);
    expect(map.caller('made_up')).toBe('made_up');
    expect(map.provider('other')).toBe('other');
  });
});
