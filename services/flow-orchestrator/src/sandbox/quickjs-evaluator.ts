import type {
  QuickJSContext,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSWASMModule,
  VmCallResult,
} from 'quickjs-emscripten';
import type { ExpressionFailure } from '../ports/expression-sandbox.port.js';
import { EXPRESSION_CONTEXT_PRELUDE } from './expression-context.prelude.js';
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
    const deadline = Date.now() + request.timeoutMs;
    runtime.setInterruptHandler(() => (interrupted ||= Date.now() > deadline));
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
      const finish = own(this.installContext(evaluation));
      const form = this.formOf(vm, request.expr);
      const value = own(this.settle(evaluation, vm.evalCode(wrapExpression(request.expr, form), 'expression.js')));
      const text = own(this.serialize(evaluation, finish, value));
      return vm.typeof(text) === 'string' ? { json: vm.getString(text) } : {};
    } finally {
      for (const handle of handles) if (handle.alive) handle.dispose();
      vm.dispose();
      runtime.dispose();
    }
  }

  /** Defines the context's names as lazy globals; returns the prelude's `finish`. */
  private installContext(evaluation: Evaluation): QuickJSHandle {
    const { vm, request } = evaluation;
    const { values, objects } = request.context;
    const load = vm.newFunction('load', (nameHandle, keyHandle) => {
      const name = vm.getString(nameHandle);
      const text =
        keyHandle === undefined || vm.typeof(keyHandle) !== 'string'
          ? values.get(name)
          : objects.get(name)?.get(vm.getString(keyHandle));
      return text === undefined ? vm.undefined : vm.newString(text);
    });
    const keysOf = vm.newFunction('keysOf', (nameHandle) =>
      vm.newString(JSON.stringify([...(objects.get(vm.getString(nameHandle))?.keys() ?? [])])),
    );
    const handles = [
      load,
      keysOf,
      vm.newString(JSON.stringify([...values.keys()])),
      vm.newString(JSON.stringify([...objects.keys()])),
    ];
    try {
      const install = vm.evalCode(EXPRESSION_CONTEXT_PRELUDE, 'prelude.js');
      if (install.error) throw this.guestError(evaluation, install.error);
      handles.push(install.value);
      const finish = vm.callFunction(install.value, vm.undefined, ...handles.slice(0, 4));
      if (finish.error) throw this.guestError(evaluation, finish.error);
      return finish.value;
    } finally {
      for (const handle of handles) handle.dispose();
    }
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

  /** The value as JSON text, with the stringify the prelude captured before the expression ran. */
  private serialize(evaluation: Evaluation, finish: QuickJSHandle, value: QuickJSHandle): QuickJSHandle {
    try {
      return this.settle(evaluation, evaluation.vm.callFunction(finish, evaluation.vm.undefined, value));
    } catch (error) {
      if (error instanceof GuestFailure && (error.failure === 'error' || error.failure === 'syntax')) {
        throw new GuestFailure('result', `ResultError: the value is not JSON: ${error.reason.replace(/^\w+: /, '')}`);
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
      return new GuestFailure('timeout', `TimeoutError: the expression did not finish within ${request.timeoutMs} ms`);
    }
    if (name === 'InternalError' && /out of memory/i.test(message)) {
      return new GuestFailure(
        'memory',
        `MemoryLimitError: the expression exceeded its memory limit of ${formatBytes(request.memoryBytes)}`,
      );
    }
    if ((name === 'InternalError' || name === 'RangeError') && /stack overflow|call stack size/i.test(message)) {
      return new GuestFailure(
        'memory',
        `StackOverflowError: the expression exceeded its stack limit of ${formatBytes(request.stackBytes)}`,
      );
    }
    return new GuestFailure(name === 'SyntaxError' ? 'syntax' : 'error', `${name}: ${message}`);
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
