import { describe, expect, it } from 'vitest';
import { importTarget } from './import-specifier.util.js';

describe('importTarget', () => {
  it('keeps built-ins and package names, reads npm: without its version', () => {
    expect(importTarget('node:fs')).toEqual({ kind: 'module', specifier: 'node:fs' });
    expect(importTarget('lodash/fp')).toEqual({ kind: 'module', specifier: 'lodash/fp' });
    expect(importTarget('npm:lodash@4.17.21/fp')).toEqual({ kind: 'module', specifier: 'lodash/fp' });
    expect(importTarget('npm:@scope/pkg@^1.2.0/sub')).toEqual({
      kind: 'module',
      specifier: '@scope/pkg/sub',
    });
  });

  it('refuses URLs, registries other than npm, and relative paths', () => {
    for (const specifier of [
      'https://deno.land/x/mod.ts',
      'jsr:@std/path',
      'file:///etc/passwd',
      './local.ts',
      '/abs.js',
    ]) {
      expect(importTarget(specifier).kind, specifier).toBe('refused');
    }
  });
});
