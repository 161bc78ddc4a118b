import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { ModuleSyntaxError, moduleToFunctionSource } from './esm-to-script.util.js';

type ModuleFunction = (host: {
  load: (s: string) => Promise<unknown>;
  meta: { url: string };
}) => Promise<Record<string, unknown>>;

/** Runs the converted module with a fake loader recording what it was asked for. */
async function evaluate(code: string, modules: Record<string, Record<string, unknown>> = {}) {
  const requested: string[] = [];
  const fn = vm.runInNewContext(moduleToFunctionSource(code)) as ModuleFunction;
  const exports = await fn({
    load: (specifier) => {
      requested.push(specifier);
      const module = modules[specifier];
      return module ? Promise.resolve(module) : Promise.reject(new Error(`no module ${specifier}`));
    },
    meta: { url: 'file:///f/x.ts' },
  });
  return { exports, requested };
}

describe('moduleToFunctionSource', () => {
  it('collects exported functions, constants, classes, defaults and export lists', async () => {
    const { exports } = await evaluate(`
      export async function main(a) { return helper(a) }
      function helper(a) { return a + 1 }
      export const [first, { second }] = [1, { second: 2 }];
      export class Box {}
      const hidden = 3;
      export { hidden as shown, helper };
      export default function preprocessor() { return 'pre' }
    `);
    expect(Object.keys(exports).sort()).toEqual([
      'Box',
      'default',
      'first',
      'helper',
      'main',
      'second',
      'shown',
    ]);
    await expect((exports.main as (a: number) => Promise<number>)(1)).resolves.toBe(2);
    expect([exports.first, exports.second, exports.shown, (exports.default as () => string)()]).toEqual([
      1,
      2,
      3,
      'pre',
    ]);
  });

  it('turns static and dynamic imports and import.meta into calls of the host', async () => {
    const { exports, requested } = await evaluate(
      `import fs, { readFileSync as read, "odd name" as odd } from 'node:fs';
       import * as path from "node:path";
       import 'side-effect';
       export * as util from 'node:util';
       export { join } from 'node:path';
       export async function main() { const os = await import('node:os'); return [fs.tag, read(), odd, path.sep, os.EOL, import.meta.url] }`,
      {
        'node:fs': { default: { tag: 'fs' }, readFileSync: () => 'read', 'odd name': 'odd' },
        'node:path': { sep: '/', join: 'join' },
        'side-effect': {},
        'node:util': { u: 1 },
        'node:os': { EOL: '\n' },
      },
    );
    await expect((exports.main as () => Promise<unknown>)()).resolves.toEqual([
      'fs',
      'read',
      'odd',
      '/',
      '\n',
      'file:///f/x.ts',
    ]);
    expect(exports.util).toEqual({ u: 1 });
    expect(exports.join).toBe('join');
    expect(requested).toEqual(['node:fs', 'node:path', 'side-effect', 'node:util', 'node:path', 'node:os']);
  });

  it('keeps line numbers, so stack traces point at the script as written', async () => {
    const code = "import x from 'm';\n\nexport function main() {\n  throw new Error('line 4');\n}";
    const { exports } = await evaluate(code, { m: { default: 1 } });
    let stack = '';
    try {
      (exports.main as () => void)();
    } catch (error) {
      stack = (error as Error).stack ?? '';
    }
    expect(stack).toMatch(/evalmachine\.<anonymous>:4:/);
  });

  it('runs top-level await and keeps strict mode', async () => {
    const { exports } = await evaluate(
      'const v = await Promise.resolve(5);\nexport const main = () => [v, this];',
    );
    expect((exports.main as () => unknown)()).toEqual([5, undefined]);
  });

  it('reports a syntax error of the module', () => {
    expect(() => moduleToFunctionSource('export function main( {')).toThrow(ModuleSyntaxError);
  });
});
