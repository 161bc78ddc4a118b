/**
 * Code run first in each job's fresh V8 context (its own globals and intrinsics). It builds,
 * from values of the job's own realm, what scripts expect to find: `console`, timers,
 * `queueMicrotask`, a small `process` (`env` is the job's environment), `Bun.env`, `Deno.env`.
 * The thread's functions it calls (`host.*`) stay inside its closure and only ever receive or
 * return primitives, so the script never holds an object of the thread's realm.
 *
 * The thread's other globals (`fetch`, `Buffer`, `URL`, `crypto`, ...) are offered through
 * getters that call `host.hostGlobal`: a script that reads one gets the real object, and the
 * thread is retired after the job, because that object leads back into the thread's realm.
 *
 * Evaluates to `install(host, envJson)`, which returns the functions the thread needs later.
 * A realm may serve several jobs of one run in turn: `setEnv` gives each its environment.
 */
export const JOB_REALM_PRELUDE = String.raw`
(function install(host, envJson, hostGlobalNamesJson) {
  'use strict';
  const g = globalThis;
  const parse = JSON.parse;
  const stringify = JSON.stringify;
  const defineProperty = Object.defineProperty;
  const toStringTag = Object.prototype.toString;
  const resolved = Promise.resolve();
  const post = host.post;
  const schedule = host.schedule;
  const cancel = host.cancel;
  const hostGlobal = host.hostGlobal;
  const hostLoad = host.load;

  const safeJson = (value) => {
    const seen = new WeakSet();
    return stringify(value, (key, item) => {
      if (typeof item === 'bigint') return item.toString() + 'n';
      if (typeof item === 'function') return '[Function' + (item.name ? ': ' + item.name : '') + ']';
      if (typeof item === 'object' && item !== null) {
        if (seen.has(item)) return '[Circular]';
        seen.add(item);
        if (item instanceof Map) return Object.fromEntries(item);
        if (item instanceof Set) return [...item];
      }
      return item;
    });
  };
  const describe = (value) => {
    if (typeof value === 'string') return value;
    if (value instanceof Error) return value.stack || value.name + ': ' + value.message;
    if (typeof value === 'function') return '[Function' + (value.name ? ': ' + value.name : '') + ']';
    if (typeof value !== 'object' || value === null) return String(value);
    try {
      const text = safeJson(value);
      return text === undefined ? toStringTag.call(value) : text;
    } catch {
      return toStringTag.call(value);
    }
  };
  const format = (args) => {
    let rest = args;
    let head = '';
    if (typeof args[0] === 'string' && args[0].includes('%')) {
      let index = 1;
      head = args[0].replace(/%[sdifjoOc%]/g, (token) => {
        if (token === '%%') return '%';
        if (index >= args.length) return token;
        const value = args[index++];
        if (token === '%c') return '';
        if (token === '%d' || token === '%i') return String(token === '%i' ? Math.trunc(Number(value)) : Number(value));
        if (token === '%f') return String(Number(value));
        return describe(value);
      });
      rest = args.slice(index);
      return [head, ...rest.map(describe)].join(' ');
    }
    return rest.map(describe).join(' ');
  };

  const counts = new Map();
  const timers = new Map();
  let groupIndent = '';
  const write = (stream) => (...args) => post(stream, groupIndent + format(args) + '\n');
  const console = {
    log: write('out'), info: write('out'), debug: write('out'), dir: write('out'), table: write('out'),
    error: write('err'), warn: write('err'), trace: write('err'),
    assert: (condition, ...args) => { if (!condition) post('err', 'Assertion failed' + (args.length ? ': ' + format(args) : '') + '\n'); },
    count: (label = 'default') => { const n = (counts.get(label) || 0) + 1; counts.set(label, n); post('out', label + ': ' + n + '\n'); },
    countReset: (label = 'default') => { counts.delete(label); },
    time: (label = 'default') => { timers.set(label, Date.now()); },
    timeEnd: (label = 'default') => { const start = timers.get(label); timers.delete(label); if (start !== undefined) post('out', label + ': ' + (Date.now() - start) + 'ms\n'); },
    timeLog: (label = 'default', ...args) => { const start = timers.get(label); if (start !== undefined) post('out', label + ': ' + (Date.now() - start) + 'ms' + (args.length ? ' ' + format(args) : '') + '\n'); },
    group: (...args) => { if (args.length) post('out', groupIndent + format(args) + '\n'); groupIndent += '  '; },
    groupCollapsed: (...args) => { if (args.length) post('out', groupIndent + format(args) + '\n'); groupIndent += '  '; },
    groupEnd: () => { groupIndent = groupIndent.slice(2); },
  };
  defineProperty(g, 'console', { value: console, writable: true, configurable: true });

  const callbacks = new Map();
  let nextTimer = 1;
  const setTimer = (repeat) => (callback, ms, ...args) => {
    if (typeof callback !== 'function') throw new TypeError('The "callback" argument must be a function');
    const id = nextTimer++;
    callbacks.set(id, { callback, args, repeat });
    schedule(id, Math.max(0, Number(ms) || 0), repeat);
    return id;
  };
  const clearTimer = (id) => {
    if (callbacks.delete(id)) cancel(id);
  };
  const queueMicrotask = (callback) => {
    if (typeof callback !== 'function') throw new TypeError('The "callback" argument must be a function');
    resolved.then(() => callback());
  };
  const globals = {
    setTimeout: setTimer(false),
    setInterval: setTimer(true),
    setImmediate: (callback, ...args) => setTimer(false)(callback, 0, ...args),
    clearTimeout: clearTimer,
    clearInterval: clearTimer,
    clearImmediate: clearTimer,
    queueMicrotask,
  };
  for (const name of Object.keys(globals)) defineProperty(g, name, { value: globals[name], writable: true, configurable: true });

  let env = parse(envJson);
  const stream = (name) => ({
    isTTY: false,
    write(chunk, encoding, done) {
      post(name, typeof chunk === 'string' ? chunk : String(chunk));
      if (typeof encoding === 'function') encoding();
      else if (typeof done === 'function') done();
      return true;
    },
  });
  const process = {
    env,
    argv: ['node', 'main'],
    execArgv: [],
    platform: host.platform,
    arch: host.arch,
    version: host.version,
    versions: { node: host.version.slice(1) },
    exitCode: undefined,
    stdout: stream('out'),
    stderr: stream('err'),
    cwd: () => '/',
    exit(code) {
      throw new Error('process.exit(' + (code ?? '') + ') ends a script without a result: return from main instead');
    },
    nextTick: (callback, ...args) => queueMicrotask(() => callback(...args)),
    on() { return process; },
    once() { return process; },
    off() { return process; },
    emitWarning: (warning) => post('err', 'Warning: ' + describe(warning) + '\n'),
  };
  defineProperty(g, 'process', { value: process, writable: true, configurable: true });
  defineProperty(g, 'Bun', { value: { env }, writable: true, configurable: true });
  defineProperty(g, 'Deno', {
    value: {
      env: {
        get: (key) => env[key],
        has: (key) => Object.hasOwn(env, key),
        toObject: () => ({ ...env }),
      },
    },
    writable: true,
    configurable: true,
  });

  for (const name of parse(hostGlobalNamesJson)) {
    defineProperty(g, name, {
      enumerable: false,
      configurable: true,
      get() {
        const value = hostGlobal(name);
        defineProperty(g, name, { value, writable: true, configurable: true });
        return value;
      },
      set(value) {
        defineProperty(g, name, { value, writable: true, configurable: true });
      },
    });
  }

  return {
    /**
     * What a module function gets as __fm: imports (a package or built-in retires the thread; a
     * workspace script, read before the job, runs in this realm) and import.meta.
     */
    moduleHost(url) {
      return {
        load: (specifier) => new Promise((resolve, reject) => {
          hostLoad(String(specifier), url).then(resolve, reject);
        }),
        meta: { url },
      };
    },
    fire(id) {
      const entry = callbacks.get(id);
      if (entry === undefined) return;
      if (!entry.repeat) callbacks.delete(id);
      entry.callback(...entry.args);
    },
    setEnv(json) {
      env = parse(json);
      // An earlier job of the run may have frozen or replaced these: its own business.
      try {
        process.env = env;
        defineProperty(g, 'Bun', { value: { env }, writable: true, configurable: true });
      } catch {}
    },
    parseArgs: (text) => parse(text),
    reviveDates: (args, names) => {
      for (const name of names)
        if (args !== null && typeof args === 'object' && typeof args[name] === 'string') args[name] = new Date(args[name]);
    },
    // As Windmill's wrapper: an undefined field (or result) is kept as null, not dropped, and a
    // BigInt is its decimal digits as a string (a JSON number would lose them).
    stringify: (value) =>
      stringify(value, (key, item) => (item === undefined ? null : typeof item === 'bigint' ? item.toString() : item)),
    errorInfo(error) {
      try {
        if ((typeof error === 'object' && error !== null) || typeof error === 'function') {
          const name = error.name;
          const message = error.message;
          const stack = error.stack;
          return stringify({
            name: typeof name === 'string' && name ? name : 'Error',
            message: typeof message === 'string' ? message : describe(error),
            stack: typeof stack === 'string' ? stack : undefined,
          });
        }
        return stringify({ name: 'Error', message: describe(error) });
      } catch {
        return stringify({ name: 'Error', message: 'the script threw a value that cannot be described' });
      }
    },
  };
})
`;
