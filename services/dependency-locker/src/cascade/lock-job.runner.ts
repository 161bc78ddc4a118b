import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { LOCKER_SETTINGS, type LockerSettings } from '../dependency-locker.config.js';
import { LockJobRepository } from './lock-job.repository.js';
import { LockOwnerService } from './lock-owner.service.js';

/** A job held this long by a replica that stopped answering is taken again. */
const STALE_MS = 10 * 60_000;
/** Ended jobs are kept a day (what happened to a lock, for whoever looks), then removed hourly. */
const KEEP_ENDED_MS = 24 * 3_600_000;
const PRUNE_EVERY_MS = 3_600_000;

/**
 * Takes lock jobs one at a time and runs them. It waits until the next job is due, or until a
 * deploy wakes it, or `FLOWMESH_LOCKER_POLL_MS` (another replica may have queued something).
 */
@Injectable()
export class LockJobRunner implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly log = new Logger('LockJobRunner');
  private stopping = false;
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private prunedAt = 0;

  constructor(
    private readonly jobs: LockJobRepository,
    private readonly owners: LockOwnerService,
    @Inject(LOCKER_SETTINGS) private readonly settings: LockerSettings,
  ) {}

  onApplicationBootstrap(): void {
    this.loop = this.run();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.loop;
  }

  wake(): void {
    this.wakeUp?.();
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      try {
        const job = await this.jobs.claim(STALE_MS);
        if (job) {
          const result = await this.owners.run(job).catch((error: unknown) => ({
            status: 'failed' as const,
            outcome: (error as Error).message,
          }));
          await this.jobs.finish(job.id, result.status, result.outcome);
          continue;
        }
        if (Date.now() - this.prunedAt > PRUNE_EVERY_MS) {
          this.prunedAt = Date.now();
          await this.jobs.prune(KEEP_ENDED_MS);
        }
        const due = await this.jobs.nextDueInMs();
        await this.sleep(Math.min(due ?? this.settings.pollMs, this.settings.pollMs));
      } catch (error) {
        if (this.stopping) break;
        this.log.warn(`lock queue: ${(error as Error).message}`);
        await this.sleep(this.settings.pollMs);
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = done;
    });
  }
}
