import { describe, expect, it } from 'vitest';
import { classifyTypescriptImport, scanTypescriptImports } from './typescript-imports.js';

const script = { kind: 'script' as const, path: 'f/lib/b' };

describe('TypeScript imports', () => {
  it('sorts specifiers: built-ins ignored, workspace paths normalized, npm ranges kept as written', () => {
    const kinds = [
      'node:fs',
      'fs',
      '/f/lib/a',
      './a.ts',
      '../other/x',
      'npm:ms@2.1.3',
      'ms@^2',
      '@scope/pkg@1.0.0/sub',
      'lodash/fp',
      'https://deno.land/x/y.ts',
      'jsr:@std/path',
      '../../../../etc',
    ].map((s) => classifyTypescriptImport(s, script));
    expect(kinds).toEqual([
      { kind: 'ignored', specifier: 'node:fs', why: 'built-in' },
      { kind: 'ignored', specifier: 'fs', why: 'built-in' },
      { kind: 'workspace', path: 'f/lib/a' },
      { kind: 'workspace', path: 'f/lib/a' },
      { kind: 'workspace', path: 'f/other/x' },
      { kind: 'npm', name: 'ms', range: '2.1.3' },
      { kind: 'npm', name: 'ms', range: '^2' },
      { kind: 'npm', name: '@scope/pkg', range: '1.0.0' },
      { kind: 'npm', name: 'lodash' },
      { kind: 'ignored', specifier: 'https://deno.land/x/y.ts', why: 'not an npm package' },
      { kind: 'ignored', specifier: 'jsr:@std/path', why: 'not an npm package' },
      { kind: 'ignored', specifier: '../../../../etc', why: 'outside the workspace' },
    ]);
  });

  it("reads a flow step's relative import against <flow>/flow, as Windmill does", () => {
    expect(classifyTypescriptImport('./helper', { kind: 'flow', path: 'f/app/main' })).toEqual({
      kind: 'workspace',
      path: 'f/app/main/helper',
    });
  });

  it('finds static, re-exported and dynamic imports in TypeScript with types and enums', () => {
    const source = `
      import type { T } from 'types-only';
      import ms from 'ms@2.1.3';
      export * from '/f/lib/a';
      enum Color { Red }
      export async function main(x: number): Promise<number> {
        const { default: y } = await import('fm-alpha');
        return x;
      }`;
    expect(scanTypescriptImports(source, script)).toEqual([
      { kind: 'package', name: 'ms', range: '2.1.3' },
      { kind: 'workspace', path: 'f/lib/a' },
      { kind: 'package', name: 'fm-alpha' },
    ]);
  });
});
