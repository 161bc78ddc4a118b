import { parentPort } from 'node:worker_threads';
import type { EvaluationOutcome, EvaluationRequest } from './quickjs-evaluator.js';
import type * as SiblingsHook from '../typescript-siblings.hook.js';

/**
 * The sandbox thread: owns one QuickJS WASM module and evaluates one expression at a time for
 * the host's `ExpressionThreadPool`, which ends the thread if an evaluation overruns.
 */
export interface ThreadRequest {
  readonly id: number;
  readonly request: EvaluationRequest;
}
export type ThreadReply =
  { readonly ready: true } | { readonly id: number; readonly outcome: EvaluationOutcome };

// Run from its TypeScript sources (tests): siblings are imported as `.js`, which only a build makes.
if (import.meta.url.endsWith('.ts')) {
  const hook = '../typescript-siblings.hook.ts';
  ((await import(hook)) as typeof SiblingsHook).resolveTypeScriptSiblings();
}

const port = parentPort;
if (!port) throw new Error('expression-sandbox.thread runs only as a worker thread');
const { newQuickJSWASMModule } = await import('quickjs-emscripten');
const { QuickJsEvaluator } = await import('./quickjs-evaluator.js');
const evaluator = new QuickJsEvaluator(await newQuickJSWASMModule());
// A fresh WASM instance runs slowly until the engine has compiled its hot code: warm it here,
// so a flow's first expression does not spend its time limit on that.
const context = { values: new Map([['n', '1']]), objects: new Map([['results', new Map([['a', '[1,2]']])]]) };
for (let i = 0; i < 20; i++) {
  evaluator.evaluate({
    expr: 'results.a.map((x) => x + n).join()',
    context,
    timeoutMs: 10_000,
    memoryBytes: 8 << 20,
    stackBytes: 256 << 10,
  });
}

port.on('message', ({ id, request }: ThreadRequest) => {
  const reply: ThreadReply = { id, outcome: evaluator.evaluate(request) };
  port.postMessage(reply);
});
const ready: ThreadReply = { ready: true };
port.postMessage(ready);
