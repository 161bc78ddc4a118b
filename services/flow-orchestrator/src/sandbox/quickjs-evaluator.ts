import type {
  QuickJSContext,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSWASMModule,
  VmCallResult,
} from 'quickjs-emscripten';
import type { ExpressionFailure } from '../ports/expression-sandbox.port.js';
import { ITEMS_CONTEXT_KEY } from '../ports/expression-items.port.js';
import { ITEM_FUNCTIONS_SOURCE } from './item-functions.source.js';
import { wrapExpression, type ExpressionForm } from './expression-source.util.js';

// Runs inside the sandbox thread, loaded by Node's own type stripping when the service runs
// from source: only erasable TypeScript here, and no imports but type-only ones and siblings.

/** The expression's context as JSON texts, made by the host: `''` stands for `undefined`. */
export interface ContextPieces {
  /** Names whose value is read whole (arrays, strings, numbers, ...). */
  readonly values: ReadonlyMap<string, string>;
  /** Plain-object names (`results`, `flow_input`), read key by key. */
  readonly objects: ReadonlyMap<string, ReadonlyMap<string, string>>;
}

export interface EvaluationRequest {
  readonly expr: string;
  readonly context: ContextPieces;
  readonly timeoutMs: number;
  readonly memoryBytes: number;
  readonly stackBytes: number;
}

/** `json` is the value's JSON text, absent for `undefined`. */
export type EvaluationOutcome =
  | { readonly ok: true; readonly json?: string }
  | { readonly ok: false; readonly failure: ExpressionFailure; readonly reason: string };

/**
 * Only what expressions need: no TypedArrays (a cheap way to ask for big buffers) and none of
 * the host's globals.
 */
const INTRINSICS = {
  BaseObjects: true,
  Date: true,
  Eval: true,
  StringNormalize: true,
  RegExp: true,
  JSON: true,
  Proxy: true,
  MapSet: true,
  Promise: true,
} as const;

const FORM_CACHE_SIZE = 2_048;

/** Context values up to this size are parsed up front; bigger ones only when read. */
const EAGER_JSON_CHARS = 2_048;

class GuestFailure extends Error {
  readonly failure: ExpressionFailure;
  readonly reason: string;
  constructor(failure: ExpressionFailure, reason: string) {
    super(reason);
    this.failure = failure;
    this.reason = reason;
  }
}

interface Evaluation {
  readonly vm: QuickJSContext;
  readonly runtime: QuickJSRuntime;
  readonly request: EvaluationRequest;
  readonly interrupted: () => boolean;
}

/**
 * Evaluates one expression in a new QuickJS runtime and context made from a shared WASM
 * module: nothing an expression does (prototype changes, globals, pending promise jobs,
 * leftover memory) survives it. The interrupt handler enforces the time limit between
 * instructions; a single builtin call can outlast it, which the host's watchdog covers by
 * ending the thread.
 */
export class QuickJsEvaluator {
  private readonly wasm: QuickJSWASMModule;
  private readonly forms = new Map<string, ExpressionForm>();

  constructor(wasm: QuickJSWASMModule) {
    this.wasm = wasm;
  }

  evaluate(request: EvaluationRequest): EvaluationOutcome {
    try {
      return { ok: true, ...this.run(request) };
    } catch (error) {
      if (error instanceof GuestFailure) return { ok: false, failure: error.failure, reason: error.reason };
      return { ok: false, failure: 'error', reason: `SandboxError: ${(error as Error).message}` };
    }
  }

  private run(request: EvaluationRequest): { json?: string } {
    const runtime = this.wasm.newRuntime();
    let interrupted = false;
    // The limit is CPU time of this thread, not wall time: on a busy machine the thread waits for
    // a core, and that wait is not the expression's. Wall time is read first (cheap); the CPU
    // clock only once the wall deadline has passed.
    const deadline = Date.now() + request.timeoutMs;
    const cpuStart = threadCpuMs();
    runtime.setInterruptHandler(
      () => (interrupted ||= Date.now() > deadline && threadCpuMs() - cpuStart > request.timeoutMs),
    );
    runtime.setMemoryLimit(request.memoryBytes);
    runtime.setMaxStackSize(request.stackBytes);
    const vm = runtime.newContext({ intrinsics: INTRINSICS });
    const evaluation: Evaluation = { vm, runtime, request, interrupted: () => interrupted };
    // Every handle must be freed before the runtime is, or QuickJS aborts on its GC assertion.
    const handles: QuickJSHandle[] = [];
    const own = (handle: QuickJSHandle): QuickJSHandle => {
      handles.push(handle);
      return handle;
    };
    try {
      const { parse, stringify } = this.installContext(evaluation);
      own(parse);
      own(stringify);
      // `variable()` / `resource()` over the values the engine read for this expression.
      if (request.context.objects.has(ITEMS_CONTEXT_KEY) || request.context.values.has(ITEMS_CONTEXT_KEY))
        own(vm.unwrapResult(vm.evalCode(ITEM_FUNCTIONS_SOURCE, 'items.js')));
      const form = this.formOf(vm, request.expr);
      const value = own(
        this.settle(evaluation, vm.evalCode(wrapExpression(request.expr, form), 'expression.js')),
      );
      const text = own(this.serialize(evaluation, stringify, value));
      return vm.typeof(text) === 'string' ? { json: vm.getString(text) } : {};
    } finally {
      for (const handle of handles) if (handle.alive) handle.dispose();
      vm.dispose();
      runtime.dispose();
    }
  }

  /**
   * Defines the context's names as globals, parsed by the guest's own JSON.parse. Small values
   * are parsed at once (one parse per name); a big one (a large result, say) is parsed only if
   * the expression reads it, through a getter that then leaves a plain data property. Done
   * through the API rather than guest code, so no setup script is compiled per evaluation.
   * Returns JSON.parse and JSON.stringify as they were before the expression could replace them.
   */
  private installContext(evaluation: Evaluation): { parse: QuickJSHandle; stringify: QuickJSHandle } {
    const { vm, request } = evaluation;
    const json = vm.getProp(vm.global, 'JSON');
    const parse = vm.getProp(json, 'parse');
    const stringify = vm.getProp(json, 'stringify');
    json.dispose();
    const decode = (text: string): QuickJSHandle => {
      if (text === '') return vm.undefined;
      const source = vm.newString(text);
      const parsed = vm.callFunction(parse, vm.undefined, source);
      source.dispose();
      return vm.unwrapResult(parsed);
    };
    const define = (target: QuickJSHandle, key: string, text: string): void => {
      if (text.length <= EAGER_JSON_CHARS) {
        const value = decode(text);
        vm.defineProp(target, key, { value, configurable: true, enumerable: true });
        value.dispose();
        return;
      }
      vm.defineProp(target, key, {
        configurable: true,
        enumerable: true,
        get(this: QuickJSHandle) {
          const value = decode(text);
          vm.defineProp(this, key, { value, configurable: true, enumerable: true });
          return value;
        },
        set(this: QuickJSHandle, value: QuickJSHandle) {
          vm.defineProp(this, key, { value, configurable: true, enumerable: true });
        },
      });
    };
    for (const [name, text] of request.context.values) define(vm.global, name, text);
    for (const [name, entries] of request.context.objects) {
      // The small entries of an object in one parse; the big ones as getters on it.
      const small: string[] = [];
      const big: Array<[string, string]> = [];
      for (const [key, text] of entries) {
        if (text.length > EAGER_JSON_CHARS) big.push([key, text]);
        else if (text !== '') small.push(`${JSON.stringify(key)}:${text}`);
      }
      const object = decode(`{${small.join(',')}}`);
      for (const [key, text] of big) define(object, key, text);
      vm.defineProp(vm.global, name, { value: object, configurable: true, enumerable: true });
      object.dispose();
    }
    return { parse, stringify };
  }

  /** Whether `expr` is an expression or a function body, decided once per distinct text. */
  private formOf(vm: QuickJSContext, expr: string): ExpressionForm {
    const known = this.forms.get(expr);
    if (known) return known;
    const compiled = vm.evalCode(wrapExpression(expr, 'expression'), 'expression.js', { compileOnly: true });
    const form: ExpressionForm = compiled.error ? 'body' : 'expression';
    (compiled.error ?? compiled.value).dispose();
    if (this.forms.size >= FORM_CACHE_SIZE) this.forms.clear();
    this.forms.set(expr, form);
    return form;
  }

  /** The value as JSON text, with the JSON.stringify captured before the expression ran. */
  private serialize(evaluation: Evaluation, stringify: QuickJSHandle, value: QuickJSHandle): QuickJSHandle {
    const kind = evaluation.vm.typeof(value);
    if (kind === 'function' || kind === 'symbol' || kind === 'bigint') {
      throw new GuestFailure('result', `ResultError: the value is not JSON: a ${kind} is not JSON`);
    }
    try {
      return this.settle(evaluation, evaluation.vm.callFunction(stringify, evaluation.vm.undefined, value));
    } catch (error) {
      if (error instanceof GuestFailure && (error.failure === 'error' || error.failure === 'syntax')) {
        throw new GuestFailure(
          'result',
          `ResultError: the value is not JSON: ${error.reason.replace(/^\w+: /, '')}`,
        );
      }
      throw error;
    }
  }

  /** The value of a call, after its promise (if any) settled, draining promise jobs. */
  private settle(evaluation: Evaluation, result: VmCallResult<QuickJSHandle>): QuickJSHandle {
    const { vm, runtime } = evaluation;
    if (result.error) throw this.guestError(evaluation, result.error);
    const handle = result.value;
    let state = vm.getPromiseState(handle);
    if (state.type === 'fulfilled' && state.notAPromise) return handle;
    while (state.type === 'pending') {
      const ran = runtime.executePendingJobs();
      if (ran.error) {
        handle.dispose();
        throw this.guestError(evaluation, ran.error);
      }
      if (ran.value === 0) break;
      state = vm.getPromiseState(handle);
    }
    handle.dispose();
    if (state.type === 'pending') {
      throw new GuestFailure('error', 'Error: the expression awaits a promise that never settles');
    }
    if (state.type === 'rejected') throw this.guestError(evaluation, state.error);
    return state.value;
  }

  /** A guest exception (disposed here) as a GuestFailure, telling the limits apart. */
  private guestError(evaluation: Evaluation, error: QuickJSHandle): GuestFailure {
    const { vm, request } = evaluation;
    const { name, message } = describeGuestError(vm, error);
    error.dispose();
    if (evaluation.interrupted()) {
      return new GuestFailure(
        'timeout',
        `TimeoutError: the expression did not finish within ${request.timeoutMs} ms`,
      );
    }
    if (name === 'InternalError' && /out of memory/i.test(message)) {
      return new GuestFailure(
        'memory',
        `MemoryLimitError: the expression exceeded its memory limit of ${formatBytes(request.memoryBytes)}`,
      );
    }
    if (
      (name === 'InternalError' || name === 'RangeError') &&
      /stack overflow|call stack size/i.test(message)
    ) {
      return new GuestFailure(
        'memory',
        `StackOverflowError: the expression exceeded its stack limit of ${formatBytes(request.stackBytes)}`,
      );
    }
    // QuickJS quotes the name (`'foo' is not defined`); say it as V8 and the engine's users do.
    const text =
      name === 'ReferenceError' ? message.replace(/^'(.+)' is not defined$/, '$1 is not defined') : message;
    return new GuestFailure(name === 'SyntaxError' ? 'syntax' : 'error', `${name}: ${text}`);
  }
}

/** Name and message of a guest exception; anything thrown that is not an Error is shown as text. */
function describeGuestError(vm: QuickJSContext, error: QuickJSHandle): { name: string; message: string } {
  if (vm.typeof(error) === 'object') {
    const read = (key: string): string | undefined => {
      const handle = vm.getProp(error, key);
      const text = vm.typeof(handle) === 'string' ? vm.getString(handle) : undefined;
      handle.dispose();
      return text;
    };
    const name = read('name');
    const message = read('message');
    if (name !== undefined || message !== undefined) return { name: name ?? 'Error', message: message ?? '' };
  }
  const dumped: unknown = vm.dump(error);
  // An out-of-memory exception may leave nothing to describe.
  if (dumped === null) return { name: 'InternalError', message: 'out of memory' };
  return { name: 'Error', message: typeof dumped === 'string' ? dumped : String(JSON.stringify(dumped)) };
}

function formatBytes(bytes: number): string {
  const MiB = 1024 * 1024;
  if (bytes % MiB === 0) return `${bytes / MiB} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** CPU time this thread has used (ms). */
function threadCpuMs(): number {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
}
