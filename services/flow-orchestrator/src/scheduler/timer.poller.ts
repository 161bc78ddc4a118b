import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { ENGINE_CONFIG, type EngineConfig } from '../engine/engine.config.js';
import { EngineOutbox } from '../engine/engine-outbox.js';
import { JobRepository, WORK_SUBJECT_SQL } from '../jobs/job.repository.js';

const BATCH = 500;
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
    private readonly jobs: JobRepository,
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
    const woken = (await this.wakeDue()) + (orphans ? await this.freeOrphans() : 0);
    if (woken > 0) this.outbox.wake();
    return woken;
  }

  private async wakeDue(): Promise<number> {
    const due = await this.jobs.query<unknown>(
      `WITH due AS (
         SELECT id FROM job WHERE wake_at <= now() AND status NOT IN ('completed','failed','cancelled')
         ORDER BY wake_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED),
       woken AS (
         UPDATE job j SET wake_at = NULL, wake_seq = j.wake_seq + 1 FROM due WHERE j.id = due.id
         RETURNING j.id, j.tag, j.priority, j.workspace)
       INSERT INTO outbox_message (id, subject, payload, headers, msg_id)
       SELECT gen_random_uuid(), ${WORK_SUBJECT_SQL}, jsonb_build_object('jobId', id, 'workspace', workspace),
              '{}'::jsonb, 'timer:' || id || ':' || gen_random_uuid()
       FROM woken RETURNING 1`,
      [],
    );
    return due.length;
  }

  private async freeOrphans(): Promise<number> {
    const orphans = await this.jobs.query<unknown>(
      `WITH stale AS (
         SELECT id FROM job WHERE lease_owner IS NOT NULL
           AND lease_until < now() - $1 * interval '1 millisecond'
           AND status NOT IN ('completed','failed','cancelled')
         LIMIT ${BATCH} FOR UPDATE SKIP LOCKED),
       freed AS (
         UPDATE job j SET lease_owner = NULL, lease_until = NULL, wake_seq = j.wake_seq + 1 FROM stale
         WHERE j.id = stale.id RETURNING j.id, j.tag, j.priority, j.workspace)
       INSERT INTO outbox_message (id, subject, payload, headers, msg_id)
       SELECT gen_random_uuid(), ${WORK_SUBJECT_SQL}, jsonb_build_object('jobId', id, 'workspace', workspace),
              '{}'::jsonb, 'orphan:' || id || ':' || gen_random_uuid()
       FROM freed RETURNING 1`,
      [this.config.leaseTtlMs],
    );
    if (orphans.length > 0)
      this.log.warn(`${orphans.length} flow job(s) lost their driver: handed to another worker`);
    return orphans.length;
  }

  /** `delete_after_secs`: the job's args, result and logs go once its time has come. */
  async deleteExpired(): Promise<void> {
    await this.jobs.query(
      `WITH expired AS (
         UPDATE job SET args = '{}'::jsonb, result = NULL, delete_after = NULL
         WHERE id IN (SELECT id FROM job WHERE delete_after <= now() LIMIT ${BATCH} FOR UPDATE SKIP LOCKED)
         RETURNING id)
       DELETE FROM job_log WHERE job_id IN (SELECT id FROM expired)`,
      [],
    );
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
