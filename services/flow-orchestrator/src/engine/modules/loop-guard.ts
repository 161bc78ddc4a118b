import { setImmediate as nextTurn } from 'node:timers/promises';
import { Injectable } from '@nestjs/common';
import { JobStore } from '../../store/job.store.js';
import { CancelSignals, canceledResult } from '../cancel-signals.js';
import type { FlowRun } from '../flow-run.js';
import type { ModuleContext, ModuleOutcome } from '../module-outcome.js';
import { WorkspaceLimits } from '../workspace-limits.js';

/**
 * A loop that runs in this worker without a commit per iteration (squashed) holds the event loop
 * for as long as its iterations resolve without I/O: no other flow, no lease renewal, no cancel
 * could run. It hands the event loop back at least this often (ms).
 */
export const YIELD_EVERY_MS = 20;
/** How often a loop reads its run's cancel mark itself, should the cancel event not reach it (ms). */
export const CANCEL_LOOK_EVERY_MS = 1_000;

export interface Cancel {
  readonly by: string;
  readonly reason: string | null;
}

/**
 * What every loop does between two iterations: gives the event loop back now and then, and stops
 * when its run was cancelled. A cancel reaches a loop three ways: the commit of an iteration
 * (a non-squashed loop's child) answers the mark; the cancel event aborts the run tree's signal;
 * and, should that event be lost, the loop reads the mark itself every second.
 */
@Injectable()
export class LoopGuard {
  constructor(
    private readonly cancels: CancelSignals,
    private readonly jobs: JobStore,
    private readonly limits: WorkspaceLimits,
  ) {}

  /** The most iterations one loop of the workspace may run. */
  async maxIterations(ctx: ModuleContext): Promise<number> {
    return (await this.limits.of(ctx.run.job.workspace)).max_loop_iterations;
  }

  pacer(ctx: ModuleContext): LoopPacer {
    return new LoopPacer(this.cancels, this.jobs, ctx.run);
  }
}

export class LoopPacer {
  private turnAt = performance.now();
  private lookedAt = performance.now();
  private signal: AbortSignal;
  /** The run whose row holds the cancel mark: the loop's own, or the first written one above a squashed body. */
  private readonly stored: FlowRun;

  constructor(
    private readonly cancels: CancelSignals,
    private readonly jobs: JobStore,
    run: FlowRun,
  ) {
    let stored = run;
    while (stored.ephemeral && stored.parent) stored = stored.parent;
    this.stored = stored;
    this.signal = cancels.signalFor(run.tree.rootJob);
  }

  /** Between two iterations: the cancel that stops the loop, or undefined to go on. */
  async between(): Promise<Cancel | undefined> {
    const now = performance.now();
    if (now - this.turnAt >= YIELD_EVERY_MS) {
      await nextTurn();
      this.turnAt = performance.now();
    }
    return this.cancelled(now);
  }

  /** The cancel of the loop's run, as far as it is known here (no wait for the event loop). */
  async cancelled(now = performance.now()): Promise<Cancel | undefined> {
    if (this.stored.cancelRequest) return this.stored.cancelRequest;
    // The signal is the whole tree's: a cancel of another job in it aborts it too, so the mark
    // decides. A loop whose flow is not written (a preview of a squashed body) has no mark.
    const aborted = this.signal.aborted;
    if (!aborted && now - this.lookedAt < CANCEL_LOOK_EVERY_MS) return undefined;
    this.lookedAt = now;
    if (aborted) this.signal = this.cancels.signalFor(this.stored.tree.rootJob);
    if (this.stored.ephemeral) return undefined;
    const cancel = await this.jobs.cancelOf(this.stored.id);
    if (cancel) this.stored.cancelRequest = cancel;
    return cancel;
  }
}

/** A loop stopped by a cancel: it fails with the cancel's error, and its flow ends `cancelled`. */
export function cancelledLoop(cancel: Cancel, status: ModuleOutcome['status'] = {}): ModuleOutcome {
  return {
    success: false,
    result: canceledResult(cancel.by, cancel.reason),
    status,
    statements: [],
    stopHandled: true,
  };
}
