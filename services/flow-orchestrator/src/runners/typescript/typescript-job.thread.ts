import { registerHooks, stripTypeScriptTypes } from 'node:module';
import vm from 'node:vm';
import { parentPort } from 'node:worker_threads';
import type { JobFailure, ThreadInbound, ThreadOutbound } from './typescript-thread.protocol.js';

/**
 * A warm TypeScript worker thread. Each job runs in a fresh V8 context (its own globals and
 * intrinsics) as an ES module, so a job never sees another job's globals; the thread itself
 * is reused only after jobs that touched nothing of the thread's realm (no import, no host
 * global such as `fetch` or `Buffer`, no error escaping the job). See `job-realm.prelude.ts`.
 */

// From TypeScript sources (tests), Node strips the types itself but siblings are imported as
// `.js`, which only a build produces: map them back to `.ts`.
if (import.meta.url.endsWith('.ts')) {
  registerHooks({
    resolve(specifier, context, nextResolve) {
      if (specifier.startsWith('.') && specifier.endsWith('.js')) {
        try {
          return nextResolve(specifier, context);
        } catch {
          return nextResolve(`${specifier.slice(0, -3)}.ts`, context);
        }
      }
      return nextResolve(specifier, context);
    },
  });
}

const port = parentPort;
if (!port) throw new Error('typescript-job.thread runs only as a worker thread');
const { JOB_REALM_PRELUDE } = await import('./job-realm.prelude.js');
const { argumentsFor, mainParams } = await import('./main-params.util.js');
const { importTarget } = await import('./import-specifier.util.js');

interface RealmApi {
  fire(id: number): void;
  parseArgs(text: string): Record<string, unknown>;
  stringify(value: unknown): string | undefined;
  errorInfo(error: unknown): string;
}
type Install = (host: object, envJson: string, hostGlobalNamesJson: string) => RealmApi;

/** Globals of the thread's realm a script may still use; reading one retires the thread after the job. */
const HOST_GLOBALS = [
  'fetch', 'Request', 'Response', 'Headers', 'FormData', 'Blob', 'File', 'URL', 'URLSearchParams',
  'TextEncoder', 'TextDecoder', 'AbortController', 'AbortSignal', 'Buffer', 'crypto', 'performance',
  'structuredClone', 'atob', 'btoa', 'EventTarget', 'Event', 'WebSocket', 'MessageChannel',
  'BroadcastChannel', 'ReadableStream', 'WritableStream', 'TransformStream', 'DOMException', 'navigator',
].filter((name) => name in globalThis);
const HOST_GLOBAL_NAMES_JSON = JSON.stringify(HOST_GLOBALS);
const realmScript = new vm.Script(JOB_REALM_PRELUDE, { filename: 'flowmesh:job-realm.js' });
const stripped = new Map<string, string>();
const STRIPPED_CACHE_SIZE = 256;

function send(message: ThreadOutbound): void {
  port!.postMessage(message);
}

/** Fails the running job; an error after a job ended leaves the thread unusable, so it exits. */
let failRunning: ((error: unknown) => void) | undefined;
function escaped(error: unknown): void {
  if (failRunning) failRunning(error);
  else process.exit(70);
}
process.on('uncaughtException', escaped);
process.on('unhandledRejection', escaped);

class ScriptFailure extends Error {
  readonly failure: JobFailure;
  constructor(failure: JobFailure) {
    super(failure.message);
    this.failure = failure;
  }
}

function typescriptToJavaScript(source: string): string {
  const cached = stripped.get(source);
  if (cached !== undefined) return cached;
  let code: string;
  try {
    code = stripTypeScriptTypes(source, { mode: 'strip' });
  } catch (error) {
    if ((error as { code?: string }).code !== 'ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX') {
      throw new ScriptFailure({ name: 'SyntaxError', message: (error as Error).message });
    }
    // Enums, namespaces and parameter properties need code generated, not only types erased.
    try {
      code = stripTypeScriptTypes(source, { mode: 'transform' });
    } catch (inner) {
      throw new ScriptFailure({ name: 'SyntaxError', message: (inner as Error).message });
    }
  }
  if (stripped.size >= STRIPPED_CACHE_SIZE) stripped.clear();
  stripped.set(source, code);
  return code;
}

/** A module of the thread's realm (built-in or package), offered to the job's context. */
async function hostModule(specifier: string, context: vm.Context): Promise<vm.SyntheticModule> {
  const target = importTarget(specifier);
  if (target.kind === 'refused') throw new ScriptFailure({ name: 'ImportError', message: target.reason });
  let namespace: Record<string, unknown>;
  try {
    namespace = (await import(target.specifier)) as Record<string, unknown>;
  } catch (error) {
    throw new ScriptFailure({
      name: 'ImportError',
      message: `import of '${specifier}' failed: ${(error as Error).message} (only Node built-ins and packages installed with the worker can be imported until scripts have locks)`,
    });
  }
  const names = Object.keys(namespace);
  const module = new vm.SyntheticModule(
    names,
    function exportAll(this: vm.SyntheticModule) {
      for (const name of names) this.setExport(name, namespace[name]);
    },
    { context, identifier: target.specifier },
  );
  await module.link(() => {
    throw new Error('a synthetic module has no imports');
  });
  await module.evaluate();
  return module;
}

interface RunningJob {
  readonly job: Extract<ThreadInbound, { type: 'run' }>['job'];
  tainted: boolean;
  realm?: RealmApi;
}

function describeFailure(error: unknown, realm: RealmApi | undefined): JobFailure {
  if (error instanceof ScriptFailure) return error.failure;
  // The job's errors belong to its own realm: its helper reads them without trusting their shape.
  if (realm) return JSON.parse(realm.errorInfo(error)) as JobFailure;
  if (error instanceof Error) return { name: error.name, message: error.message, ...(error.stack ? { stack: error.stack } : {}) };
  return { name: 'Error', message: String(error) };
}

async function run(running: RunningJob): Promise<ThreadOutbound> {
  const { job } = running;
  const timers = new Map<number, NodeJS.Timeout>();
  const partial = { out: '', err: '' };
  const post = (stream: 'out' | 'err', text: string): void => {
    const lines = (partial[stream] + text).split('\n');
    partial[stream] = lines.pop() ?? '';
    for (const line of lines) send({ type: 'log', line });
  };
  // The thread's own env is replaced too: a package imported by the job reads process.env here.
  for (const key of Object.keys(process.env)) delete process.env[key];
  Object.assign(process.env, job.env);
  const context = vm.createContext(vm.constants.DONT_CONTEXTIFY);
  const host = {
    post: (stream: unknown, text: unknown) => post(stream === 'err' ? 'err' : 'out', String(text)),
    schedule: (id: unknown, ms: unknown, repeat: unknown) => {
      const fire = (): void => running.realm?.fire(Number(id));
      timers.set(Number(id), repeat === true ? setInterval(fire, Number(ms)) : setTimeout(fire, Number(ms)));
    },
    cancel: (id: unknown) => {
      clearTimeout(timers.get(Number(id)));
      timers.delete(Number(id));
    },
    hostGlobal: (name: unknown) => {
      running.tainted = true;
      return (globalThis as Record<string, unknown>)[String(name)];
    },
    platform: process.platform,
    arch: process.arch,
    version: process.version,
  };
  try {
    const realm = (realmScript.runInContext(context) as Install)(host, JSON.stringify(job.env), HOST_GLOBAL_NAMES_JSON);
    running.realm = realm;
    const load = (specifier: string): Promise<vm.SyntheticModule> => {
      running.tainted = true;
      return hostModule(specifier, context);
    };
    const module = new vm.SourceTextModule(typescriptToJavaScript(job.content), {
      context,
      identifier: `file:///${job.path ?? 'script'}.ts`,
      importModuleDynamically: load,
    });
    await module.link(load);
    await module.evaluate();
    const entry = (module.namespace as Record<string, unknown>)[job.entrypoint];
    if (typeof entry !== 'function') {
      throw new ScriptFailure({
        name: 'ExecutionErr',
        message: `the script exports no function named ${job.entrypoint}`,
      });
    }
    const params = mainParams(Function.prototype.toString.call(entry));
    const args = argumentsFor(params, realm.parseArgs(job.argsJson));
    const value: unknown = await (entry as (...args: unknown[]) => unknown)(...args);
    let json: string | undefined;
    try {
      json = realm.stringify(value);
    } catch (error) {
      throw new ScriptFailure({ name: 'ExecutionErr', message: `the result is not JSON: ${(error as Error).message}` });
    }
    json ??= 'null';
    const bytes = Buffer.byteLength(json);
    if (bytes > job.maxResultBytes) return { type: 'done', ok: true, bytes, reusable: !running.tainted };
    return { type: 'done', ok: true, json, bytes, reusable: !running.tainted };
  } catch (error) {
    return { type: 'done', ok: false, error: describeFailure(error, running.realm), reusable: !running.tainted };
  } finally {
    for (const timer of timers.values()) clearTimeout(timer);
    if (partial.out) send({ type: 'log', line: partial.out });
    if (partial.err) send({ type: 'log', line: partial.err });
  }
}

port.on('message', (message: ThreadInbound) => {
  if (message.type !== 'run') return;
  const running: RunningJob = { job: message.job, tainted: false };
  const escapedError = new Promise<ThreadOutbound>((resolve) => {
    failRunning = (error) => {
      running.tainted = true;
      resolve({ type: 'done', ok: false, error: describeFailure(error, running.realm), reusable: false });
    };
  });
  void Promise.race([run(running), escapedError]).then((reply) => {
    failRunning = undefined;
    // A job that failed after touching the thread's realm may have left anything behind.
    send(reply.type === 'done' ? { ...reply, reusable: reply.reusable && !running.tainted } : reply);
  });
});
send({ type: 'ready' });
