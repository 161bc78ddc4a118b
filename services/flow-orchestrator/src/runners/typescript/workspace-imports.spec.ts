import { MeshError, npmLockText, type Script } from '@flowmesh/contracts';
import { describe, expect, it } from 'vitest';
import type { JobError } from '../../ports/script-runner.port.js';
import { scriptJobs } from '../script-job.fixture.js';
import { scriptFunctionSource } from './typescript-source.util.js';
import { readWorkspaceImports, type WorkspaceScriptReader } from './workspace-imports.js';
import { moduleUrl } from './workspace-modules.js';

const job = scriptJobs('bun', { env: { WM_TOKEN: 'job-token' }, path: 'f/app/main' });
const convert = (content: string) => ({ source: scriptFunctionSource(content) });

/** The registry as the port sees it: scripts by path (and version), and who asked. */
function registry(scripts: Record<string, Partial<Script> & { content: string }>) {
  const asked: string[] = [];
  const read: WorkspaceScriptReader = (request) => {
    asked.push(`${request.actor.token} ${request.path}${request.hash ? `@${request.hash}` : ''}`);
    const key = request.hash ? `${request.path}@${request.hash}` : request.path;
    const found = scripts[key];
    if (!found) return Promise.reject(new MeshError('NOT_FOUND', `script ${request.path} not found`));
    if (found.language === ('forbidden' as never))
      return Promise.reject(new MeshError('PERMISSION_DENIED', 'no'));
    return Promise.resolve({ language: 'bun', hash: 'h', ...found } as Script);
  };
  return { read, asked };
}
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as JobError,
  );

describe('readWorkspaceImports', () => {
  it('follows imports of imports once each, relative to each importer, with the job token', async () => {
    const { read, asked } = registry({
      'f/lib/a': { content: `import { b } from './b';\nimport 'ms@2';\nexport const a = b;` },
      'f/lib/b': { content: `export const b = 1;` },
    });
    const found = await readWorkspaceImports(
      job(`import { a } from '/f/lib/a.ts';\nimport { b } from '/f/lib/b';\nexport function main() {}`),
      read,
      convert,
    );
    expect(asked).toEqual(['job-token f/lib/a', 'job-token f/lib/b']);
    expect(found?.workspace.imports).toEqual({
      [moduleUrl('f/app/main')]: { '/f/lib/a.ts': 'f/lib/a', '/f/lib/b': 'f/lib/b' },
      [moduleUrl('f/lib/a')]: { './b': 'f/lib/b' },
    });
    expect(Object.keys(found?.workspace.modules ?? {})).toEqual(['f/lib/a', 'f/lib/b']);
    expect(found?.requirements).toEqual({ ms: '2' });
  });

  it('reads the version the lock names; none for a script without workspace imports', async () => {
    const { read, asked } = registry({ 'f/lib/a@v1': { content: `export const a = 1;` } });
    const lock = npmLockText({ hash: '0'.repeat(64), requirements: {}, lockfile: {} }, { 'f/lib/a': 'v1' });
    await readWorkspaceImports(
      job(`import { a } from './../lib/a';`, { path: 'f/lib/x', lock }),
      read,
      convert,
    );
    expect(asked).toEqual(['job-token f/lib/a@v1']);
    expect(await readWorkspaceImports(job(`import ms from 'ms';`), read, convert)).toBeUndefined();
    // A script that does not parse imports nothing here: it fails as it starts, with its SyntaxError.
    expect(
      await readWorkspaceImports(job(`const root = '/';\nexport function main( {`), read, convert),
    ).toBeUndefined();
  });

  it('fails naming the path: unreadable, missing, not TypeScript, outside the workspace, a circle', async () => {
    const { read } = registry({
      'f/lib/secret': { language: 'forbidden' as never, content: '' },
      'f/lib/py': { language: 'python3', content: 'x = 1' },
      'f/lib/x': { content: `import './y';` },
      'f/lib/y': { content: `import './x';` },
    });
    const messageOf = async (content: string, path?: string | null) =>
      (await failure(readWorkspaceImports(job(content, path === undefined ? {} : { path }), read, convert)))
        ?.message;
    expect(await messageOf(`import '/f/lib/secret';`)).toBe(
      "import of '/f/lib/secret': script f/lib/secret: this job may not read it",
    );
    expect(await messageOf(`import '/f/lib/gone';`)).toMatch(
      /^import of '\/f\/lib\/gone': script f\/lib\/gone: no such script/,
    );
    expect(await messageOf(`import '/f/lib/py';`)).toBe(
      "import of '/f/lib/py': script f/lib/py is python3, not TypeScript",
    );
    expect(await messageOf(`import '../../../etc/passwd';`)).toMatch(/not a script of the workspace/);
    expect(await messageOf(`import './a';`, null)).toMatch(
      /a script run without a path has no folder to import from/,
    );
    expect(await messageOf(`import '/f/lib/x';`)).toMatch(
      /in a circle \(f\/lib\/x -> f\/lib\/y -> f\/lib\/x\)/,
    );
  });
});
