import {
  isWorkspaceImport,
  lockedScriptsOf,
  MeshError,
  workspaceImportPath,
  type Script,
  type TypescriptRequirements,
} from '@flowmesh/contracts';
import { JobError, type ScriptJob } from '../../ports/script-runner.port.js';
import { scriptRequirements } from './script-packages.js';
import { scriptImports } from './typescript-source.util.js';
import { moduleUrl, type WorkspaceModules } from './workspace-modules.js';

/** Reads a deployed script as the job may: with its own token, so the registry checks its permission. */
export type WorkspaceScriptReader = (request: {
  readonly actor: { readonly token: string };
  readonly workspace: string;
  readonly path: string;
  readonly hash?: string;
}) => Promise<Script>;

/** Languages whose scripts a TypeScript job can import. */
const TYPESCRIPT = { names: new Set(['bun', 'bunnative', 'deno', 'nativets']), label: 'TypeScript' };
/** Scripts one job may import in all (directly or not). */
export const MAX_IMPORTED_SCRIPTS = 100;

export interface JobWorkspace {
  readonly workspace: WorkspaceModules;
  /** The packages the imported scripts need, beside the job's own (its own ranges win). */
  readonly requirements: TypescriptRequirements;
}

/**
 * The workspace scripts a TypeScript job imports, followed through the scripts they import, each
 * read once through the registry with the job's token (a script the job may not read fails it,
 * naming the path) at the version the job's lock names (what dependency-locker locked it
 * against), else the version deployed now. Relative imports are read from the importer's folder:
 * a script's own, or for a flow step (`<flow path>/<step id>`) the flow, as dependency-locker
 * reads them. Undefined when the job imports none. Throws `JobError` `ImportError`.
 */
export async function readWorkspaceImports(
  job: ScriptJob,
  read: WorkspaceScriptReader,
  functionSourceOf: (content: string) => { source: string } | { error: string },
): Promise<JobWorkspace | undefined> {
  const pinned = lockedScriptsOf(job.lock);
  const imports: Record<string, Record<string, string>> = {};
  const modules: Record<string, string> = {};
  const edges = new Map<string, string[]>();
  const requirements: Record<string, string> = {};
  let level = [
    { key: job.path ?? '', url: moduleUrl(job.path), path: job.path ?? undefined, content: job.content },
  ];
  while (level.length > 0) {
    const next: typeof level = [];
    for (const importer of level) {
      const own: Record<string, string> = {};
      for (const specifier of importsOf(importer.content).filter(isWorkspaceImport)) {
        const path = resolveWorkspaceImport(specifier, importer.path, job.path);
        own[specifier] = path;
        edges.set(importer.key, [...(edges.get(importer.key) ?? []), path]);
        if (path in modules) continue;
        if (Object.keys(modules).length >= MAX_IMPORTED_SCRIPTS)
          throw new JobError(
            'ImportError',
            `the script imports more than ${MAX_IMPORTED_SCRIPTS} workspace scripts`,
          );
        const script = await readImportedScript(
          job,
          read,
          { specifier, path, hash: pinned[path] },
          TYPESCRIPT,
        );
        const converted = functionSourceOf(script.content);
        if ('error' in converted)
          throw new JobError('ImportError', `import of '${specifier}' (${path}): ${converted.error}`);
        modules[path] = converted.source;
        for (const [name, range] of Object.entries(packagesOf(script.content, path)))
          requirements[name] ??= range;
        next.push({ key: path, url: moduleUrl(path), path, content: script.content });
      }
      if (Object.keys(own).length > 0) imports[importer.url] = own;
    }
    level = next;
  }
  if (Object.keys(modules).length === 0) return undefined;
  const cycle = findCycle(edges, job.path ?? '');
  if (cycle)
    throw new JobError(
      'ImportError',
      `workspace scripts import each other in a circle (${cycle.join(' -> ')})`,
    );
  return { workspace: { imports, modules }, requirements };
}

/**
 * The specifiers a script imports; none when it does not parse: the job's own script then fails
 * as it starts, with its SyntaxError, and an imported one was already refused when converted.
 */
function importsOf(content: string): string[] {
  try {
    return scriptImports(content);
  } catch {
    return [];
  }
}

function packagesOf(content: string, path: string): TypescriptRequirements {
  try {
    return scriptRequirements(content);
  } catch (error) {
    throw new JobError('ImportError', `${path}: ${(error as Error).message}`);
  }
}

/** The script an import names; `importer` is where the importing code sits (undefined: an inline script). */
export function resolveWorkspaceImport(
  specifier: string,
  importer: string | undefined,
  jobPath: string | null | undefined,
): string {
  if (!specifier.startsWith('/') && importer === undefined)
    throw new JobError(
      'ImportError',
      `import of '${specifier}': a script run without a path has no folder to import from; import /f/... or /u/...`,
    );
  const folder = importer === undefined ? '' : importer.slice(0, Math.max(importer.lastIndexOf('/'), 0));
  const path = workspaceImportPath(specifier, folder);
  if (path === undefined)
    throw new JobError(
      'ImportError',
      `import of '${specifier}'${jobPath ? ` in ${importer ?? jobPath}` : ''}: not a script of the workspace (f/<folder>/... or u/<user>/...)`,
    );
  return path;
}

/**
 * A script a job imports, read with the job's token at `hash` (the version its lock names) or
 * the current one; `languages` are those the importing job can run (named in the error).
 */
export async function readImportedScript(
  job: ScriptJob,
  read: WorkspaceScriptReader,
  { specifier, path, hash }: { specifier: string; path: string; hash: string | undefined },
  languages: { readonly names: ReadonlySet<string>; readonly label: string },
): Promise<Script> {
  const token = job.env.WM_TOKEN;
  if (!token)
    throw new JobError(
      'ImportError',
      `import of '${specifier}' (${path}): the job has no token to read it with`,
    );
  let script: Script;
  try {
    script = await read({ actor: { token }, workspace: job.workspace, path, ...(hash ? { hash } : {}) });
  } catch (error) {
    if (!(error instanceof MeshError)) throw error;
    const why =
      error.code === 'PERMISSION_DENIED' || error.code === 'UNAUTHENTICATED'
        ? 'this job may not read it'
        : error.code === 'NOT_FOUND'
          ? `no such script${hash ? ` at the version its lock names (${hash})` : ''}, or this job may not read it`
          : `the registry did not answer (${error.message})`;
    throw new JobError('ImportError', `import of '${specifier}': script ${path}: ${why}`);
  }
  if (!languages.names.has(script.language))
    throw new JobError(
      'ImportError',
      `import of '${specifier}': script ${path} is ${script.language}, not ${languages.label}`,
    );
  return script;
}

/** A circle of imports reachable from `root` (main's key), as the paths along it. */
function findCycle(edges: ReadonlyMap<string, readonly string[]>, root: string): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const trail: string[] = [];
  const visit = (node: string): string[] | undefined => {
    if (state.get(node) === 'open') return [...trail.slice(trail.indexOf(node)), node];
    if (state.get(node) === 'done') return undefined;
    state.set(node, 'open');
    trail.push(node);
    for (const next of edges.get(node) ?? []) {
      const found = visit(next);
      if (found) return found;
    }
    trail.pop();
    state.set(node, 'done');
    return undefined;
  };
  return visit(root);
}
