import { setTimeout as sleep } from 'node:timers/promises';
import {
  createMemoryClient,
  createOrchestratorJobsClient,
  MeshError,
  type MemoryLockHolder,
  type MultitaskStrategy,
} from '@flowmesh/contracts';
import { MeshClient } from '@flowmesh/messaging';
import type { Logger } from '@flowmesh/telemetry';
import { Inject, Injectable } from '@nestjs/common';
import { AGENTS_SETTINGS, type AgentsSettings } from '../agent-runtime.config.js';

/**
 * How soon a step waiting for a memory asks again: at once after the first ask, then less often
 * (a long wait, behind a parked step, costs one small query a second, not four).
 */
const FIRST_ASK_AGAIN_MS = 100;
const MOST_ASK_AGAIN_MS = 1_000;

/** Nest token of the logger `MemoryTurns` warns on. */
export const MEMORY_TURNS_LOGGER = Symbol('MEMORY_TURNS_LOGGER');

/** A step's ask for its memory (the memory key and step it loads and saves). */
export interface TurnAsk {
  readonly token: string;
  readonly workspace: string;
  readonly flowPath: string;
  readonly memoryKey: string;
  readonly stepId: string;
  readonly jobId: string;
  readonly rootJob: string;
  readonly strategy: MultitaskStrategy;
  readonly signal: AbortSignal;
  /** Told true while the step waits (it holds no slot meanwhile), false once it goes on. */
  readonly waiting?: (waiting: boolean) => void;
  readonly log: (message: string) => void;
}

/**
 * A step refused its memory: another run holds or waits for it and the strategy is `reject`, or
 * `interrupt` may not cancel that run. The user's to settle (fault class `user`).
 */
export class MemoryInUseError extends Error {
  override readonly name = 'MemoryInUse';
}

/**
 * Turns at a memory for this replica's agent steps (memory-service keeps the queue, one ticket a
 * step): a step takes its turn before it loads its history and lets go after its save, so two runs
 * on one memory id never write over each other's exchange. Tickets are leases, renewed with the
 * steps' own; a parked step keeps its ticket until its approval timeout.
 */
@Injectable()
export class MemoryTurns {
  /** Steps of this replica holding or waiting for a ticket. */
  private readonly ticketed = new Set<string>();

  constructor(
    private readonly mesh: MeshClient,
    @Inject(AGENTS_SETTINGS) private readonly settings: AgentsSettings,
    @Inject(MEMORY_TURNS_LOGGER) private readonly logger: Logger,
  ) {}

  /**
   * Returns once the step holds the memory. While others go first, the step waits (and tells
   * `waiting`); with `interrupt`, the runs ahead of it are cancelled first, as their user could.
   */
  async take(ask: TurnAsk): Promise<void> {
    const memory = createMemoryClient(this.mesh);
    const interrupted = new Set<string>();
    let waited = false;
    let pause = FIRST_ASK_AGAIN_MS;
    this.ticketed.add(ask.jobId);
    try {
      for (;;) {
        const reply = await memory.acquireLock({
          actor: { token: ask.token },
          workspace: ask.workspace,
          flowPath: ask.flowPath,
          memoryKey: ask.memoryKey,
          stepId: ask.stepId,
          jobId: ask.jobId,
          rootJob: ask.rootJob,
          strategy: ask.strategy,
          leaseMs: this.settings.leaseMs,
        });
        if (reply.status === 'held') {
          if (waited) ask.log(`memory ${ask.memoryKey} is free: the step goes on`);
          return;
        }
        if (reply.status === 'rejected') {
          this.ticketed.delete(ask.jobId);
          throw new MemoryInUseError(
            `memory ${ask.memoryKey} (step ${ask.stepId}) is in use by run ${reply.holder.rootJob} and multitask_strategy is reject: this run is refused; run it again once that one ended, or choose enqueue or interrupt`,
          );
        }
        if (!waited) {
          waited = true;
          ask.waiting?.(true);
          const holder = reply.holder ? ` by run ${reply.holder.rootJob}` : '';
          ask.log(
            `memory ${ask.memoryKey} (step ${ask.stepId}) is in use${holder}: the step waits its turn (multitask_strategy ${ask.strategy}, ${reply.position} ahead)`,
          );
        }
        for (const other of reply.interrupted) {
          if (interrupted.has(other.rootJob)) continue;
          interrupted.add(other.rootJob);
          await this.interrupt(ask, other);
        }
        await sleep(pause, undefined, { signal: ask.signal });
        pause = Math.min(MOST_ASK_AGAIN_MS, Math.round(pause * 1.5));
      }
    } finally {
      if (waited) ask.waiting?.(false);
    }
  }

  /** Cancels a run ahead of the step, through the orchestrator, as the step's user. */
  private async interrupt(ask: TurnAsk, other: MemoryLockHolder): Promise<void> {
    ask.log(
      `multitask_strategy interrupt: run ${other.rootJob}, which uses memory ${ask.memoryKey} (step ${ask.stepId}), is cancelled`,
    );
    try {
      await createOrchestratorJobsClient(this.mesh).cancel({
        actor: { token: ask.token },
        workspace: ask.workspace,
        id: other.rootJob,
        reason: `interrupted by run ${ask.rootJob} on memory ${ask.memoryKey} (multitask_strategy interrupt)`,
      });
    } catch (error) {
      // Gone already: its ticket goes with it.
      if (error instanceof MeshError && error.code === 'NOT_FOUND') return;
      if (error instanceof MeshError && error.code === 'PERMISSION_DENIED')
        throw new MemoryInUseError(
          `multitask_strategy interrupt: run ${other.rootJob}, which uses memory ${ask.memoryKey} (step ${ask.stepId}), may not be cancelled by this run's user: ${error.message}`,
        );
      throw error;
    }
  }

  /** Renews the tickets of these running steps (those that have one) with their leases. */
  async renew(jobIds: readonly string[]): Promise<void> {
    const ticketed = jobIds.filter((jobId) => this.ticketed.has(jobId));
    if (ticketed.length === 0) return;
    await createMemoryClient(this.mesh).renewLocks({ jobIds: ticketed, leaseMs: this.settings.leaseMs });
  }

  /**
   * A parked step keeps its memory while it waits for an answer (the next run on it waits too):
   * its ticket lasts until the answer's deadline, and one lease more for the replica taking it up.
   */
  async keepWhileParked(jobId: string, until: string): Promise<void> {
    if (!this.ticketed.delete(jobId)) return;
    const leaseMs = Math.max(0, Date.parse(until) - Date.now()) + this.settings.leaseMs;
    await createMemoryClient(this.mesh)
      .renewLocks({ jobIds: [jobId], leaseMs })
      .catch((error: unknown) =>
        this.logger.warn(
          { err: error, job_id: jobId },
          "the parked step's memory ticket could not be extended",
        ),
      );
  }

  /** Drops the tickets of steps that saved their memory or ended (cancelled, failed). */
  async release(jobIds: readonly string[]): Promise<void> {
    if (jobIds.length === 0) return;
    for (const jobId of jobIds) this.ticketed.delete(jobId);
    await createMemoryClient(this.mesh)
      .releaseLocks({ jobIds: [...jobIds] })
      .catch((error: unknown) =>
        this.logger.warn(
          { err: error, job_ids: jobIds },
          'memory tickets could not be released; they run out with their lease',
        ),
      );
  }

  /** The step ended here: its ticket (if it took one) goes, and the next run on its memory goes on. */
  async done(jobId: string): Promise<void> {
    if (this.ticketed.has(jobId)) await this.release([jobId]);
  }

  /** Forgets a step's ticket here without releasing it (the step was handed to another replica). */
  forget(jobId: string): void {
    this.ticketed.delete(jobId);
  }
}
