import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { ENGINE_CONFIG, type EngineConfig } from '../engine/engine.config.js';
import { EngineOutbox } from '../engine/engine-outbox.js';
import { JobStore } from '../store/job.store.js';
import { LeaseStore } from '../store/lease.store.js';

const JANITOR_EVERY = 20;

/**
 * The clock of parked jobs. Every poll it queues a work message for each job whose `wake_at`
 * has come (a sleep, a retry delay, an approval timeout, a scheduled or debounced run, a run
 * waiting for a concurrency slot), and for each flow job whose driver stopped renewing its lease
 * long ago (its process died). Now and then it also deletes what `delete_after_secs` asked for.
 * Every process runs one; `SKIP LOCKED` shares the rows between them.
 */
@Injectable()
export class TimerPoller implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly log = new Logger(TimerPoller.name);
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private polls = 0;
  private orphansCheckedAt = 0;

  constructor(
    private readonly jobs: JobStore,
    private readonly leases: LeaseStore,
    private readonly outbox: EngineOutbox,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.schedule();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** Wakes the due jobs, and the orphaned flow jobs when `orphans` (the default); the number woken. */
  async pollOnce(orphans = true): Promise<number> {
    const woken = (await this.jobs.wakeDue()) + (orphans ? await this.freeOrphans() : 0);
    if (woken > 0) this.outbox.wake();
    return woken;
  }

  private async freeOrphans(): Promise<number> {
    const orphans = await this.leases.freeOrphans(this.config.leaseTtlMs);
    if (orphans > 0) this.log.warn(`${orphans} flow job(s) lost their driver: handed to another worker`);
    return orphans;
  }

  /** `delete_after_secs`: the job's args, result and logs go once its time has come. */
  deleteExpired(): Promise<void> {
    return this.jobs.deleteExpired();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick().finally(() => {
        this.running = undefined;
        this.schedule();
      });
    }, this.config.timerPollMs);
  }

  private async tick(): Promise<void> {
    try {
      // An orphan is one whose lease ran out a whole lease ago: looking for them every tenth of
      // a lease is soon enough, and spares the lease index a scan every poll.
      const now = Date.now();
      const orphans = now - this.orphansCheckedAt >= this.config.leaseTtlMs / 10;
      if (orphans) this.orphansCheckedAt = now;
      await this.pollOnce(orphans);
      if (++this.polls % JANITOR_EVERY === 0) await this.deleteExpired();
    } catch (error) {
      this.log.warn(`timer poll failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
