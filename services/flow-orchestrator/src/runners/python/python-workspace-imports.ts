import { lockedScriptsOf, pythonWorkspaceImports } from '@flowmesh/contracts';
import { JobError, type ScriptJob } from '../../ports/script-runner.port.js';
import {
  MAX_IMPORTED_SCRIPTS,
  readImportedScript,
  resolveWorkspaceImport,
  type WorkspaceScriptReader,
} from '../typescript/workspace-imports.js';

const PYTHON = { names: new Set(['python3']), label: 'python3' };

/** Cheap test before scanning: only code naming `f.`, `u.` or a relative module can import a script. */
const MAY_IMPORT_SCRIPTS = /^\s*(?:from\s+\.|(?:from|import)\s+(?:f|u)\.)/m;

export interface PythonJobModules {
  /** The job's own module name (`f.lib.main`), so its relative imports resolve; none for an inline script. */
  readonly name?: string;
  /** Files to write beside the job's script: `f/lib/helpers.py` to the imported script's code. */
  readonly files: Record<string, string>;
}

/**
 * The workspace scripts a python3 job imports by Windmill's names (`from f.lib.helpers import x`,
 * `from .sibling import y`), followed through the scripts they import, each read once through
 * the registry with the job's token at the version its lock names (else the current one), as
 * TypeScript jobs read theirs. Each becomes `<path>.py` in the job's directory (on `sys.path`), so
 * `f.lib.helpers` is a namespace package module; the job itself runs as the module its path
 * names (a flow step `<flow>/<step>` as `f.app.flow.step`), so `.sibling` is its folder's.
 * Undefined when the job imports none. Throws `JobError` `ImportError`.
 */
export async function readPythonWorkspaceImports(
  job: ScriptJob,
  read: WorkspaceScriptReader,
): Promise<PythonJobModules | undefined> {
  if (!MAY_IMPORT_SCRIPTS.test(job.content)) return undefined;
  const pinned = lockedScriptsOf(job.lock);
  const files: Record<string, string> = {};
  let level: Array<{ path: string | undefined; content: string }> = [
    { path: job.path ?? undefined, content: job.content },
  ];
  while (level.length > 0) {
    const next: typeof level = [];
    for (const importer of level)
      for (const specifier of pythonWorkspaceImports(importer.content)) {
        const path = resolveWorkspaceImport(specifier, importer.path, job.path);
        const file = `${path}.py`;
        if (file in files || path === job.path) continue;
        if (Object.keys(files).length >= MAX_IMPORTED_SCRIPTS)
          throw new JobError(
            'ImportError',
            `the script imports more than ${MAX_IMPORTED_SCRIPTS} workspace scripts`,
          );
        const script = await readImportedScript(job, read, { specifier, path, hash: pinned[path] }, PYTHON);
        files[file] = script.content;
        next.push({ path, content: script.content });
      }
    level = next;
  }
  if (Object.keys(files).length === 0) return undefined;
  return { ...(job.path ? { name: job.path.split('/').join('.') } : {}), files };
}
