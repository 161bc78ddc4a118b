import { describe, expect, it } from 'vitest';
import { collectRequirements, type ScriptSource } from './requirements-collector.js';
import { scanPythonImports } from './python-imports.js';
import { scanTypescriptImports } from './typescript-imports.js';

const sources =
  (map: Record<string, string>, language = 'bun') =>
  (path: string) =>
    Promise.resolve(
      map[path] === undefined
        ? undefined
        : ({ language, content: map[path], version: `v-${path}` } satisfies ScriptSource),
    );

describe('collectRequirements', () => {
  it('keeps the pins of transitively imported scripts (Windmill #11080 strips them)', async () => {
    const lookup = sources({
      'f/lib/a': `import a from 'fm-alpha@1.0.0'; import '/f/lib/c';`,
      'f/lib/c': `import b from 'fm-beta@2.0.0'; import a from 'fm-alpha@1.1.0';`,
    });
    const collected = await collectRequirements(
      {
        content: `import a from 'fm-alpha'; import x from './a'; import g from 'fm-gamma';`,
        place: { kind: 'script', path: 'f/lib/b' },
      },
      scanTypescriptImports,
      lookup,
    );
    // fm-alpha: the nearest pin (a's 1.0.0), not c's and not latest; fm-beta from two levels down.
    expect(collected).toEqual({
      requirements: { 'fm-alpha': '1.0.0', 'fm-beta': '2.0.0', 'fm-gamma': 'latest' },
      directImports: ['f/lib/a'],
      // Every script followed, at the version read: what a worker runs for this lock.
      scripts: { 'f/lib/a': 'v-f/lib/a', 'f/lib/c': 'v-f/lib/c' },
    });
  });

  it("lets the unit's own range win over an imported pin", async () => {
    const collected = await collectRequirements(
      {
        content: `import a from 'fm-alpha@^1.1.0'; import '/f/lib/a';`,
        place: { kind: 'agent', path: 'f/ai/x' },
      },
      scanTypescriptImports,
      sources({ 'f/lib/a': `import a from 'fm-alpha@1.0.0';` }),
    );
    expect(collected.requirements).toEqual({ 'fm-alpha': '^1.1.0' });
  });

  it('ends on an import cycle and names a script it has never seen', async () => {
    const cyclic = await collectRequirements(
      { content: `import '/f/lib/a';`, place: { kind: 'script', path: 'f/lib/b' } },
      scanTypescriptImports,
      sources({ 'f/lib/a': `import '/f/lib/b'; import 'ms@2';`, 'f/lib/b': `import '/f/lib/a';` }),
    );
    expect(cyclic.requirements).toEqual({ ms: '2' });
    await expect(
      collectRequirements(
        { content: `import '/f/lib/nowhere';`, place: { kind: 'script', path: 'f/lib/b' } },
        scanTypescriptImports,
        sources({}),
      ),
    ).rejects.toThrow('imports /f/lib/nowhere, a script dependency-locker has not seen deployed');
  });

  it('refuses two ranges of one package in the same code', async () => {
    await expect(
      collectRequirements(
        { content: `import 'ms@1'; import 'ms@2';`, place: { kind: 'script', path: 'f/lib/b' } },
        scanTypescriptImports,
        sources({}),
      ),
    ).rejects.toThrow('imports of ms ask for two versions (1 and 2)');
  });

  it('follows python workspace imports and keeps their pinned requirements', async () => {
    const collected = await collectRequirements(
      {
        content: `import os\nimport requests\nfrom f.lib.helpers import go\nimport yaml\n`,
        place: { kind: 'script', path: 'f/lib/main' },
      },
      scanPythonImports,
      sources(
        { 'f/lib/helpers': `# requirements:\n# requests==2.31.0\n# fmtest-py>=1.0\nimport requests\n` },
        'python3',
      ),
    );
    expect(collected).toEqual({
      requirements: { 'fmtest-py': '>=1.0', pyyaml: 'latest', requests: '==2.31.0' },
      directImports: ['f/lib/helpers'],
      scripts: { 'f/lib/helpers': 'v-f/lib/helpers' },
    });
  });

  it("follows python relative imports from the importer's folder, as workers do", async () => {
    const collected = await collectRequirements(
      {
        content: `from .helpers import go\nfrom f.lib import util\n`,
        place: { kind: 'script', path: 'f/lib/main' },
      },
      scanPythonImports,
      sources(
        {
          'f/lib/helpers': `from ..other.pins import x\n`,
          'f/lib/util': '',
          'f/other/pins': 'import yaml\n',
        },
        'python3',
      ),
    );
    expect(collected).toMatchObject({
      requirements: { pyyaml: 'latest' },
      directImports: ['f/lib/helpers', 'f/lib/util'],
    });
    expect(Object.keys(collected.scripts)).toEqual(['f/lib/helpers', 'f/lib/util', 'f/other/pins']);
  });
});
