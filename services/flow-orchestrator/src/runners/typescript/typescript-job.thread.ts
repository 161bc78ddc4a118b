import { getHeapSpaceStatistics } from 'node:v8';
import vm from 'node:vm';
import { parentPort, resourceLimits } from 'node:worker_threads';
import type { JobFailure, ThreadInbound, ThreadJob, ThreadOutbound } from './typescript-thread.protocol.js';
import type { JobPackages } from './import-specifier.util.js';
import type * as SiblingsHook from '../../typescript-siblings.hook.js';

/**
 * A warm TypeScript worker thread. Each job runs in a V8 context of its own (its own globals and
 * intrinsics), its ES module run as a function (`esm-to-script.util.ts`), so a job never sees
 * another run's globals: jobs with the same `realmKey` (the steps of one run, acting with one
 * token) reuse their context in turn, because making one costs more than a light step. The
 * thread itself is reused by any job only after jobs that touched nothing of the thread's realm
 * (no import, no host global such as `fetch` or `Buffer`, no error escaping the job); a thread a
 * job touched serves only later jobs acting with the same authority (`trustKey`: the token's
 * workspace, principal and scopes), each in its own run's realm. See `job-realm.prelude.ts`.
 */

// Run from its TypeScript sources (tests): siblings are imported as `.js`, which only a build makes.
if (import.meta.url.endsWith('.ts')) {
  const hook = '../../typescript-siblings.hook.ts';
  ((await import(hook)) as typeof SiblingsHook).resolveTypeScriptSiblings();
}

const port = parentPort;
if (!port) throw new Error('typescript-job.thread runs only as a worker thread');
const { JOB_REALM_PRELUDE } = await import('./job-realm.prelude.js');
const { argumentsFor, mainParams } = await import('./main-params.util.js');
type MainParam = ReturnType<typeof mainParams>[number];
const { importForScript } = await import('./import-specifier.util.js');
const { moduleUrl, workspaceModuleLoader } = await import('./workspace-modules.js');
const { AWAITING_AFTER_MS, REALMS_PER_THREAD } = await import('./typescript-thread.protocol.js');

interface RealmApi {
  fire(id: number): void;
  setEnv(envJson: string): void;
  moduleHost(url: string): object;
  parseArgs(text: string): Record<string, unknown>;
  /** Makes these arguments the realm's `Date`s when they are strings. */
  reviveDates(args: Record<string, unknown>, names: readonly string[]): void;
  stringify(value: unknown): string | undefined;
  errorInfo(error: unknown): string;
}
type Install = (host: object, envJson: string, hostGlobalNamesJson: string) => RealmApi;

/** Globals of the thread's realm a script may still use; reading one retires the thread after the job. */
const HOST_GLOBALS = [
  'fetch',
  'Request',
  'Response',
  'Headers',
  'FormData',
  'Blob',
  'File',
  'URL',
  'URLSearchParams',
  'TextEncoder',
  'TextDecoder',
  'AbortController',
  'AbortSignal',
  'Buffer',
  'crypto',
  'performance',
  'structuredClone',
  'atob',
  'btoa',
  'EventTarget',
  'Event',
  'WebSocket',
  'MessageChannel',
  'BroadcastChannel',
  'ReadableStream',
  'WritableStream',
  'TransformStream',
  'DOMException',
  'navigator',
].filter((name) => name in globalThis);
const HOST_GLOBAL_NAMES_JSON = JSON.stringify(HOST_GLOBALS);
const realmScript = new vm.Script(JOB_REALM_PRELUDE, { filename: 'flowmesh:job-realm.js' });
const compiled = new Map<string, vm.Script>();
const COMPILED_CACHE_SIZE = 256;
/** `main`'s parameters by the function's source text, read once per thread. */
const paramsBySource = new Map<string, readonly MainParam[]>();

/** What the realm calls on the thread, answered for the job it runs now (none: ignored). */
interface JobHost {
  post(stream: unknown, text: unknown): void;
  schedule(id: unknown, ms: unknown, repeat: unknown): void;
  cancel(id: unknown): void;
  hostGlobal(name: unknown): unknown;
  load(specifier: unknown, importerUrl: unknown): Promise<unknown>;
}

/** A V8 context with the job realm installed, serving one job at a time. */
interface Realm {
  readonly context: vm.Context;
  readonly api: RealmApi;
  current: JobHost | undefined;
}

/**
 * Realms kept for later jobs with the same `realmKey` (the steps of one run): making a context
 * and installing the realm is most of a light job's cost. Least recently used go first.
 */
const keptRealms = new Map<string, Realm>();

/**
 * What the thread's heap may hold between jobs before the kept realms go: a run's step that left
 * a large global must not leave the next run's job short of its memory limit.
 */
const KEEP_HEAP_BYTES = ((resourceLimits.maxOldGenerationSizeMb ?? 1024) * 1024 * 1024) / 4;

/**
 * The heap in use, summed over its spaces: `getHeapStatistics` would also count the native
 * contexts, walking every realm not yet collected (measured: ~190 us a job once realms churn).
 */
function usedHeapBytes(): number {
  let used = 0;
  for (const space of getHeapSpaceStatistics()) used += space.space_used_size;
  return used;
}

function dropRealmsIfHeavy(): void {
  if (keptRealms.size > 0 && usedHeapBytes() > KEEP_HEAP_BYTES) keptRealms.clear();
}

function realmFor(key: string | undefined): Realm {
  if (key !== undefined) {
    const kept = keptRealms.get(key);
    if (kept) {
      keptRealms.delete(key);
      keptRealms.set(key, kept);
      return kept;
    }
  }
  // Not made ahead while the thread waits: a realm made right after a heavy job's was dropped
  // kept that one's memory alive (a next run's job then ran out of heap, flakily).
  const realm = newRealm();
  if (key !== undefined) {
    keptRealms.set(key, realm);
    if (keptRealms.size > REALMS_PER_THREAD) keptRealms.delete(keptRealms.keys().next().value!);
  }
  return realm;
}

function newRealm(): Realm {
  const context = vm.createContext(vm.constants.DONT_CONTEXTIFY);
  // Bound once per realm: the calls go to whichever job runs in it now.
  const realm: { context: vm.Context; api?: RealmApi; current: JobHost | undefined } = {
    context,
    current: undefined,
  };
  const host = {
    post: (stream: unknown, text: unknown) => realm.current?.post(stream, text),
    schedule: (id: unknown, ms: unknown, repeat: unknown) => realm.current?.schedule(id, ms, repeat),
    cancel: (id: unknown) => realm.current?.cancel(id),
    hostGlobal: (name: unknown) => realm.current?.hostGlobal(name),
    load: (specifier: unknown, importerUrl: unknown) =>
      realm.current?.load(specifier, importerUrl) ?? Promise.reject(new Error('the job has ended')),
    platform: process.platform,
    arch: process.arch,
    version: process.version,
  };
  realm.api = (realmScript.runInContext(context) as Install)(host, '{}', HOST_GLOBAL_NAMES_JSON);
  return realm as Realm;
}

function send(message: ThreadOutbound): void {
  port!.postMessage(message);
}

/**
 * The authority (`trustKey`, else the run's `realmKey`) one of whose jobs reached into this
 * thread's realm (an import, a host global): what it may have changed there (a built-in module, a
 * prototype of the thread) is now that authority's, so the thread serves its jobs only until the
 * pool retires it. A job of another is refused, should the pool ever send one.
 */
let ownedBy: string | undefined;

/** Whom a job's changes to the thread would reach: jobs acting with its authority. */
function ownerOf(job: ThreadJob): string | undefined {
  return job.trustKey ?? job.realmKey;
}
/** An error escaped a job, or a job without a run reached into the thread: nothing runs here again. */
let spoiled = false;

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

/** The module function's source as a `vm.Script`, compiled once per thread. */
function compile(functionSource: string, filename: string): vm.Script {
  const key = `${filename}\0${functionSource}`;
  const cached = compiled.get(key);
  if (cached) return cached;
  let script: vm.Script;
  try {
    script = new vm.Script(functionSource, { filename });
  } catch (error) {
    if (error instanceof ScriptFailure) throw error;
    throw new ScriptFailure({ name: 'SyntaxError', message: (error as Error).message });
  }
  if (compiled.size >= COMPILED_CACHE_SIZE) compiled.clear();
  compiled.set(key, script);
  return script;
}

function paramsOf(entry: unknown): readonly MainParam[] {
  const source = Function.prototype.toString.call(entry);
  let params = paramsBySource.get(source);
  if (!params) {
    params = mainParams(source);
    if (paramsBySource.size >= COMPILED_CACHE_SIZE) paramsBySource.clear();
    paramsBySource.set(source, params);
  }
  return params;
}

/**
 * The thread's own env becomes the job's when the job first reaches into the thread's realm (a
 * package it imports reads process.env here). Such a job retires the thread, so a job that never
 * does finds the env of no other job and costs nothing to set up.
 */
function lendThreadEnv(envJson: string): void {
  for (const key of Object.keys(process.env)) delete process.env[key];
  Object.assign(process.env, JSON.parse(envJson) as Record<string, string>);
}

/** A module of the thread's realm (built-in or package), for the job's `import`. */
async function hostModule(specifier: string, packages: JobPackages | undefined): Promise<unknown> {
  try {
    return await importForScript(specifier, packages);
  } catch (error) {
    throw new ScriptFailure({ name: 'ImportError', message: (error as Error).message });
  }
}

interface RunningJob {
  readonly job: Extract<ThreadInbound, { type: 'run' }>['job'];
  tainted: boolean;
  /** An error escaped the job (a throwing timer, an unhandled rejection). */
  escaped: boolean;
  /** Set when the job has its outcome: what its leftovers do after that reaches nobody. */
  finished: boolean;
  realm?: RealmApi;
}

function describeFailure(error: unknown, realm: RealmApi | undefined): JobFailure {
  if (error instanceof ScriptFailure) return error.failure;
  // The job's errors belong to its own realm: its helper reads them without trusting their shape.
  if (realm) return JSON.parse(realm.errorInfo(error)) as JobFailure;
  if (error instanceof Error)
    return { name: error.name, message: error.message, ...(error.stack ? { stack: error.stack } : {}) };
  return { name: 'Error', message: String(error) };
}

async function run(running: RunningJob): Promise<ThreadOutbound> {
  const { job } = running;
  const timers = new Map<number, NodeJS.Timeout>();
  const partial = { out: '', err: '' };
  const post = (stream: 'out' | 'err', text: string): void => {
    if (running.finished) return;
    const lines = (partial[stream] + text).split('\n');
    partial[stream] = lines.pop() ?? '';
    for (const line of lines) send({ type: 'log', line });
  };
  const touchThreadRealm = (): void => {
    if (!running.tainted) lendThreadEnv(job.envJson);
    running.tainted = true;
  };
  const jobHost: JobHost = {
    post: (stream, text) => post(stream === 'err' ? 'err' : 'out', String(text)),
    schedule: (id, ms, repeat) => {
      if (running.finished) return;
      const fire = (): void => running.realm?.fire(Number(id));
      timers.set(Number(id), repeat === true ? setInterval(fire, Number(ms)) : setTimeout(fire, Number(ms)));
    },
    cancel: (id) => {
      clearTimeout(timers.get(Number(id)));
      timers.delete(Number(id));
    },
    hostGlobal: (name) => {
      if (running.finished) return undefined;
      touchThreadRealm();
      return (globalThis as Record<string, unknown>)[String(name)];
    },
    load: (specifier, importerUrl) => {
      if (running.finished) return Promise.reject(new Error('the job has ended'));
      // A workspace script runs in the job's own realm: the thread stays untouched.
      const own = loadWorkspace?.(String(specifier), String(importerUrl));
      if (own) return own;
      touchThreadRealm();
      return hostModule(String(specifier), job.packages);
    },
  };
  let realm: Realm | undefined;
  let loadWorkspace: ReturnType<typeof workspaceModuleLoader> | undefined;
  try {
    realm = realmFor(job.realmKey);
    realm.current = jobHost;
    realm.api.setEnv(job.envJson);
    running.realm = realm.api;
    const context = realm.context;
    const api = realm.api;
    if (job.workspace)
      loadWorkspace = workspaceModuleLoader(job.workspace, async (source, url) =>
        (compile(source, url).runInContext(context) as (host: object) => Promise<unknown>)(
          api.moduleHost(url),
        ),
      );
    const filename = moduleUrl(job.path);
    const moduleFunction = compile(job.functionSource, filename).runInContext(context) as (
      host: object,
    ) => Promise<unknown>;
    const exports = (await moduleFunction(realm.api.moduleHost(filename))) as Record<string, unknown>;
    const entry = exports[job.entrypoint];
    if (typeof entry !== 'function') {
      throw new ScriptFailure({
        name: 'ExecutionErr',
        message: `the script exports no function named ${job.entrypoint}`,
      });
    }
    let parsed = realm.api.parseArgs(job.argsJson);
    if (job.preprocess) parsed = realm.api.parseArgs(await preprocess(exports, parsed, realm.api, job));
    if (job.dateParams?.length) realm.api.reviveDates(parsed, job.dateParams);
    const args = argumentsFor(paramsOf(entry), parsed);
    const value: unknown = await (entry as (...args: unknown[]) => unknown)(...args);
    let json: string | undefined;
    try {
      json = realm.api.stringify(value);
    } catch (error) {
      throw new ScriptFailure({
        name: 'ExecutionErr',
        message: `the result is not JSON: ${(error as Error).message}`,
      });
    }
    json ??= 'null';
    const bytes = Buffer.byteLength(json);
    if (bytes > job.maxResultBytes) return { type: 'done', ok: true, bytes, reusable: !running.tainted };
    return { type: 'done', ok: true, json, bytes, reusable: !running.tainted };
  } catch (error) {
    return {
      type: 'done',
      ok: false,
      error: describeFailure(error, running.realm),
      reusable: !running.tainted,
    };
  } finally {
    for (const timer of timers.values()) clearTimeout(timer);
    if (partial.out) send({ type: 'log', line: partial.out });
    if (partial.err) send({ type: 'log', line: partial.err });
    running.finished = true;
    if (realm?.current === jobHost) realm.current = undefined;
  }
}

/**
 * Windmill's preprocessor, in the job before its entrypoint: `preprocessor` gets the job's
 * arguments (a trigger's `{ event }`) by name; its result, an object as it is (nothing: `{}`,
 * anything else `{ value }`), is what the entrypoint gets, sent to the worker first (the job's
 * arguments become it) and returned as JSON to be parsed in the job's realm.
 */
async function preprocess(
  exports: Record<string, unknown>,
  parsed: Record<string, unknown>,
  api: RealmApi,
  job: ThreadJob,
): Promise<string> {
  const preprocessor = exports.preprocessor;
  if (typeof preprocessor !== 'function') {
    throw new ScriptFailure({
      name: 'ExecutionErr',
      message: 'the script exports no function named preprocessor',
    });
  }
  const value: unknown = await (preprocessor as (...args: unknown[]) => unknown)(
    ...argumentsFor(paramsOf(preprocessor), parsed),
  );
  const args =
    value === null || value === undefined
      ? {}
      : typeof value === 'object' && !Array.isArray(value)
        ? value
        : { value };
  let json: string | undefined;
  try {
    json = api.stringify(args);
  } catch (error) {
    throw new ScriptFailure({
      name: 'ExecutionErr',
      message: `the preprocessor's result is not JSON: ${(error as Error).message}`,
    });
  }
  json ??= '{}';
  const bytes = Buffer.byteLength(json);
  if (bytes > job.maxResultBytes) {
    throw new ScriptFailure({
      name: 'ResultTooLarge',
      message: `the preprocessor's result is ${bytes} bytes, over the limit of ${job.maxResultBytes}`,
    });
  }
  send({ type: 'preprocessed', json });
  return json;
}

/** What the thread is after a job: clean for anyone, kept for its run's jobs, or done. */
function settleOwnership(running: RunningJob): { reusable: boolean; keepsRun: boolean } {
  if (running.escaped) spoiled = true;
  else if (running.tainted && ownedBy === undefined) {
    const owner = ownerOf(running.job);
    if (owner === undefined) spoiled = true;
    else {
      ownedBy = owner;
      // Other authorities' realms are of no use to a thread only this one may have.
      for (const key of [...keptRealms.keys()]) if (key !== running.job.realmKey) keptRealms.delete(key);
    }
  }
  if (spoiled) return { reusable: false, keepsRun: false };
  if (ownedBy === undefined) return { reusable: true, keepsRun: false };
  return { reusable: false, keepsRun: true };
}

port.on('message', (message: ThreadInbound) => {
  if (message.type !== 'run') return;
  if (spoiled || (ownedBy !== undefined && ownerOf(message.job) !== ownedBy)) {
    send({
      type: 'done',
      ok: false,
      error: { name: 'ExecutionErr', message: 'the script thread was not clean; the job did not run' },
      reusable: false,
    });
    return;
  }
  const running: RunningJob = { job: message.job, tainted: false, escaped: false, finished: false };
  const escapedError = new Promise<ThreadOutbound>((resolve) => {
    failRunning = (error) => {
      running.tainted = true;
      running.escaped = true;
      resolve({ type: 'done', ok: false, error: describeFailure(error, running.realm), reusable: false });
    };
  });
  const began = Date.now();
  let awaiting: NodeJS.Timeout | undefined;
  let turnEnded = false;
  let finishedInTurn: ThreadOutbound | undefined;
  const answer = (reply: ThreadOutbound): void => {
    failRunning = undefined;
    dropRealmsIfHeavy();
    send(reply.type === 'done' ? { ...reply, ...settleOwnership(running) } : reply);
  };
  // Runs once the job's first turn and the promise jobs it queued are done. A job that ended in
  // that turn (most do) answers now: no timer to set and clear. One still running awaits
  // something outside the thread; the timer fires only while the thread is free.
  setImmediate(() => {
    turnEnded = true;
    if (finishedInTurn) answer(finishedInTurn);
    else if (!running.finished) {
      awaiting = setTimeout(
        () => {
          if (!running.finished) send({ type: 'awaiting' });
        },
        Math.max(0, AWAITING_AFTER_MS - (Date.now() - began)),
      );
    }
  });
  void Promise.race([run(running), escapedError]).then((reply) => {
    clearTimeout(awaiting);
    running.finished = true;
    // Promise jobs the script left behind run before the answer: one that never stops keeps
    // it from leaving, so the time limit blames this job, not the next one on the thread.
    if (turnEnded) setImmediate(() => answer(reply));
    else finishedInTurn = reply;
  });
});
send({ type: 'ready' });
