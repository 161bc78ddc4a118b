import { describe, expect, it } from 'vitest';
import { ImportError } from './import-specifier.util.js';
import { packageOf, scriptRequirements } from './script-packages.js';

describe('packageOf', () => {
  it('reads the package and the range an import names; built-ins, URLs and paths are none', () => {
    expect(packageOf('npm:ms@2.1.3')).toEqual({ name: 'ms', range: '2.1.3' });
    expect(packageOf('ms@^2/sub')).toEqual({ name: 'ms', range: '^2' });
    expect(packageOf('@scope/pkg@1/deep/file.js')).toEqual({ name: '@scope/pkg', range: '1' });
    expect(packageOf('@scope/pkg')).toEqual({ name: '@scope/pkg' });
    expect(packageOf('lodash/fp')).toEqual({ name: 'lodash' });
    for (const none of ['node:fs', 'fs', 'https://x.test/a.js', 'jsr:@std/path', './local', '/abs'])
      expect(packageOf(none)).toBeUndefined();
  });
});

describe('scriptRequirements', () => {
  it("asks for what the worker lacks (at latest) and what has a range; the worker's own packages are used as they are", () => {
    const content = `import type { X } from 'zod';
import { z } from 'zod';
import ms from 'npm:ms@2.1.3';
import odd from 'is-odd';
export { thing } from 'flowmesh-not-installed-pkg';
export async function main(): Promise<number> { const fs = await import('node:fs'); return ms('1s') + (await import('left-pad')).default.length; }`;
    expect(scriptRequirements(content)).toEqual({
      ms: '2.1.3',
      'is-odd': 'latest',
      'flowmesh-not-installed-pkg': 'latest',
      'left-pad': 'latest',
    });
  });

  it('refuses two ranges of one package', () => {
    expect(() =>
      scriptRequirements(`import a from 'npm:ms@1'; import b from 'npm:ms@2'; export function main() {}`),
    ).toThrow(new ImportError('imports of ms ask for two versions (1 and 2); import one'));
  });
});
