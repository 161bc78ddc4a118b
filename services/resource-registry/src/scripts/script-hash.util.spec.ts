import { describe, expect, it } from 'vitest';
import { canonicalJson, scriptHash } from './script-hash.util.js';

const code = {
  path: 'u/a/s',
  language: 'bun',
  content: 'export function main() {}',
  lock: null,
  schema: { type: 'object', properties: {} },
};

describe('scriptHash', () => {
  it('names what runs: equal code hashes equal, whatever the key order of the schema', () => {
    expect(scriptHash(code)).toMatch(/^[0-9a-f]{64}$/);
    expect(scriptHash({ ...code, schema: { properties: {}, type: 'object' } })).toBe(scriptHash(code));
  });

  it('changes with the path, language, content, lock and schema', () => {
    const base = scriptHash(code);
    for (const change of [
      { path: 'u/a/t' },
      { language: 'deno' },
      { content: '' },
      { lock: 'x' },
      { schema: null },
    ]) {
      expect(scriptHash({ ...code, ...change })).not.toBe(base);
    }
  });

  it('canonical JSON sorts keys at every level and keeps array order', () => {
    expect(canonicalJson({ b: [{ d: 1, c: 2 }], a: null })).toBe('{"a":null,"b":[{"c":2,"d":1}]}');
  });
});
