import { setTimeout as delay } from 'node:timers/promises';
import { Injectable } from '@nestjs/common';
import { ConcurrencySlotStore } from '../store/concurrency-slot.store.js';
import type { SqlStatement } from '../store/sql-batch.js';
import { ExpressionEvaluator } from './expressions/expression.evaluator.js';
import { NO_RESULTS } from './expressions/expression-scope.js';
import type { FlowRun } from './flow-run.js';

/**
 * `concurrent_limit` / `concurrency_key` / `concurrency_time_window_s` of a flow (and a
 * rawscript's own `concurrent_limit` / `custom_concurrency_key`): at most `limit` jobs with the
 * same key run at once. A run over the limit waits queued and is woken when a run of its key
 * ends; a step waits in its worker.
 */
@Injectable()
export class ConcurrencyLimiter {
  constructor(
    private readonly slots: ConcurrencySlotStore,
    private readonly evaluator: ExpressionEvaluator,
  ) {}

  async key(run: FlowRun): Promise<string> {
    const source = run.value.concurrency_key;
    const fallback = `${run.job.workspace}/flow/${run.job.path ?? 'preview'}`;
    if (!source) return fallback;
    return resolveKey(this.evaluator, source, run.job.workspace, run.flowInput, 'value.concurrency_key');
  }

  /** Takes a slot for the run; false when the limit is reached. */
  tryAcquire(run: FlowRun, key: string): Promise<boolean> {
    return this.tryAcquireSlot(
      key,
      run.id,
      run.value.concurrent_limit ?? 0,
      run.value.concurrency_time_window_s ?? 0,
    );
  }

  /**
   * Takes a slot of `key` for `jobId` unless `limit` jobs hold one. A slot is held until its job
   * ends; with a window, a slot older than the window no longer counts (a job that died holding
   * one stops blocking the others).
   */
  async tryAcquireSlot(key: string, jobId: string, limit: number, windowS: number): Promise<boolean> {
    return this.slots.tryAcquire(key, jobId, limit, windowS);
  }

  /** Waits (in this process) for a slot: a step with its own concurrent_limit. */
  async acquireSlot(
    key: string,
    jobId: string,
    limit: number,
    windowS: number,
    signal?: AbortSignal,
  ): Promise<void> {
    let pause = 20;
    while (!(await this.tryAcquireSlot(key, jobId, limit, windowS))) {
      if (signal?.aborted) throw new Error(`canceled while waiting for a concurrency slot of ${key}`);
      await delay(pause);
      pause = Math.min(pause * 2, 250);
    }
  }

  async releaseSlot(key: string, jobId: string): Promise<void> {
    await this.slots.release(key, jobId);
  }

  /** The run ended: its slot frees, and the oldest run waiting on the key is woken. */
  release(key: string, jobId: string): SqlStatement[] {
    return this.slots.releaseAndWakeNext(key, jobId);
  }
}

const TEMPLATE = /\$workspace|\$args\[/;

/**
 * A concurrency or debounce key: a template (`$workspace`, `$args[name]`) as Windmill writes
 * them, else a JavaScript expression over `flow_input` (and `args`, `workspace`); text that is
 * neither is the key as written.
 */
export async function resolveKey(
  evaluator: ExpressionEvaluator,
  source: string,
  workspace: string,
  args: Record<string, unknown>,
  fieldPath: string,
): Promise<string> {
  if (TEMPLATE.test(source)) {
    return source
      .replaceAll('$workspace', workspace)
      .replace(/\$args\[([^\]]+)\]/g, (_match, name: string) => {
        const value = args[name.trim().replace(/^['"]|['"]$/g, '')];
        return typeof value === 'string' ? value : JSON.stringify(value ?? null);
      });
  }
  try {
    const value = await evaluator.evaluate(
      source,
      { flowInput: args, results: NO_RESULTS, vars: { args, workspace } },
      fieldPath,
    );
    return typeof value === 'string' ? value : JSON.stringify(value ?? null);
  } catch {
    return source;
  }
}
