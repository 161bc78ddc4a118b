import { readFileSync, writeSync } from 'node:fs';
import vm from 'node:vm';
import type * as SiblingsHook from '../../typescript-siblings.hook.js';
import type { WorkspaceModules } from './workspace-modules.js';

/**
 * A TypeScript job as a process of its own, for jobs that need their own working directory (the
 * steps of a `same_worker` flow share `./shared`; a worker thread has its process's directory).
 * `node typescript-process.main.js <script file> <entrypoint> <file name for stack traces>`:
 * the arguments (and the workspace scripts it imports) come as JSON on fd 3 (`{args, workspace?}`), the outcome goes to fd 4 (`{ok: true, result}` or
 * `{ok: false, error: {name, message, stack}}`), stdout and stderr are the job's log. The script
 * runs as it does in a thread: the same module function, import rules, and `main` arguments by name.
 */

// Run from its TypeScript sources (tests): siblings are imported as `.js`, which only a build makes.
if (import.meta.url.endsWith('.ts')) {
  const hook = '../../typescript-siblings.hook.ts';
  ((await import(hook)) as typeof SiblingsHook).resolveTypeScriptSiblings();
}

const { scriptFunctionSource } = await import('./typescript-source.util.js');
const { argumentsFor, mainParams } = await import('./main-params.util.js');
const { importForScript } = await import('./import-specifier.util.js');
const { workspaceModuleLoader } = await import('./workspace-modules.js');

const [scriptPath = '', entrypoint = 'main', filename = 'file:///script.ts', packagesJson] =
  process.argv.slice(2);
const packages = packagesJson ? (JSON.parse(packagesJson) as { dir: string; names: string[] }) : undefined;

function failure(name: string, message: string): Error {
  const error = new Error(message);
  error.name = name;
  return error;
}

function describe(error: unknown): { name: string; message: string; stack?: string } {
  if (error instanceof Error) {
    return { name: error.name, message: error.message, ...(error.stack ? { stack: error.stack } : {}) };
  }
  return { name: 'Error', message: String(error) };
}

/** A `preprocess` job's preprocessed arguments as JSON, once its preprocessor returned. */
let preprocessed: string | undefined;
let answered = false;
function answer(reply: string): never {
  if (!answered)
    writeSync(
      4,
      preprocessed === undefined ? reply : `${reply.slice(0, -1)},"preprocessed":${preprocessed}}`,
    );
  answered = true;
  // Timers and handles the script left behind end with it, as a thread's job's are cleared.
  process.exit(0);
}
const fail = (error: unknown): never => answer(JSON.stringify({ ok: false, error: describe(error) }));

/**
 * As Windmill's wrapper: an undefined field (or result) is kept as null, not dropped, and a
 * BigInt is its decimal digits as a string (a JSON number would lose them).
 */
function toJson(value: unknown, what: string): string {
  try {
    return (
      JSON.stringify(value, (_key, item: unknown) =>
        item === undefined ? null : typeof item === 'bigint' ? item.toString() : item,
      ) ?? 'null'
    );
  } catch (error) {
    throw failure('ExecutionErr', `${what} is not JSON: ${(error as Error).message}`);
  }
}
process.on('uncaughtException', fail);
process.on('unhandledRejection', fail);

try {
  const input = JSON.parse(readFileSync(3, 'utf8') || '{}') as {
    args?: Record<string, unknown>;
    workspace?: WorkspaceModules;
    preprocess?: boolean;
  };
  const { workspace } = input;
  let args = input.args ?? {};
  type ModuleFunction = (host: object) => Promise<Record<string, unknown>>;
  const hostFor = (url: string): object => ({
    load: (specifier: unknown) =>
      loadWorkspace?.(String(specifier), url) ?? importForScript(String(specifier), packages),
    meta: { url },
  });
  const loadWorkspace = workspace
    ? workspaceModuleLoader(workspace, (source, url) =>
        (vm.runInThisContext(source, { filename: url }) as ModuleFunction)(hostFor(url)),
      )
    : undefined;
  const moduleFunction = vm.runInThisContext(scriptFunctionSource(readFileSync(scriptPath, 'utf8')), {
    filename,
  }) as ModuleFunction;
  const exports = await moduleFunction(hostFor(filename));
  const entry = exports[entrypoint];
  if (typeof entry !== 'function') {
    throw failure('ExecutionErr', `the script exports no function named ${entrypoint}`);
  }
  if (input.preprocess) {
    // Windmill's preprocessor: called first with the arguments (a trigger's `{ event }`), its
    // result (an object as it is, nothing `{}`, anything else `{ value }`) is the entrypoint's.
    const preprocessor = exports.preprocessor;
    if (typeof preprocessor !== 'function') {
      throw failure('ExecutionErr', 'the script exports no function named preprocessor');
    }
    const value: unknown = await (preprocessor as (...args: unknown[]) => unknown)(
      ...argumentsFor(mainParams(Function.prototype.toString.call(preprocessor)), args),
    );
    const shaped =
      value === null || value === undefined
        ? {}
        : typeof value === 'object' && !Array.isArray(value)
          ? value
          : { value };
    preprocessed = toJson(shaped, "the preprocessor's result");
    args = JSON.parse(preprocessed) as Record<string, unknown>;
  }
  const params = mainParams(Function.prototype.toString.call(entry));
  const value: unknown = await (entry as (...args: unknown[]) => unknown)(...argumentsFor(params, args));
  answer(`{"ok":true,"result":${toJson(value, 'the result')}}`);
} catch (error) {
  fail(error);
}
