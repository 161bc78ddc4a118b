import { isTerminalJobStatus, MeshError } from '@flowmesh/contracts';
import {
  Inject,
  Injectable,
  Logger,
  Optional,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import type { Query } from '../../store/connection-lanes.js';
import { JobStore } from '../../store/job.store.js';
import { CronSchedule } from './cron-schedule.js';
import { ScheduleRunStarter } from './schedule-run.starter.js';
import { ScheduleStore, type ScheduleRow } from './schedule.store.js';
import { tickJobId } from './tick-job-id.js';
import { TriggerMetrics } from './trigger.metrics.js';

/** How the ticker polls; the defaults suit production and tests alike. */
export interface ScheduleTickerSettings {
  /** How often due schedules are looked for. */
  readonly pollMs: number;
  /**
   * How long before its tick a run is started: it then waits for the tick (`scheduled_for`,
   * `wake_at`) and the timer of parked jobs dispatches it on time, whatever the registry's and
   * the database's latency when it was started.
   */
  readonly aheadMs: number;
  /** A tick fired this long after it was due is late: the mesh (or this ticker) was down. */
  readonly lateAfterMs: number;
  /** Schedules claimed per transaction, and started at once. */
  readonly batch: number;
}

export const SCHEDULE_TICKER_SETTINGS = Symbol('SCHEDULE_TICKER_SETTINGS');
export const DEFAULT_TICKER_SETTINGS: ScheduleTickerSettings = {
  pollMs: 100,
  aheadMs: 1_000,
  lateAfterMs: 1_000,
  batch: 200,
};

/** Errors that say the run cannot start as the schedule stands: recorded, and the tick passes. */
const REFUSALS = new Set([
  'VALIDATION_FAILED',
  'NOT_FOUND',
  'PERMISSION_DENIED',
  'UNAUTHENTICATED',
  'UNSUPPORTED',
  'LIMIT_EXCEEDED',
]);

type TickOutcome = 'fired' | 'skipped' | 'refused' | 'retry';

/**
 * Fires schedules, exactly once per tick whatever the number of orchestrator replicas. Every
 * replica (service role) polls the schedules due within `aheadMs`, `FOR UPDATE SKIP LOCKED`, so
 * each schedule is claimed by one of them; in that transaction it writes the tick's
 * `schedule_run` row (primary key: schedule and tick, the guard against a second run), starts
 * the run through the run use cases with a job id derived from the tick, and moves
 * `next_fire_at` on. A replica that dies mid-way loses its lock and its uncommitted row: the next
 * one repeats the tick, and the run use case, finding the job id taken, starts nothing new.
 *
 * Like Windmill, a tick whose run cannot start because the schedule is wrong (target gone, owner
 * without rights) records `error` on the schedule and passes; one that fails for a reason that
 * passes (the registry unreachable) is tried again at the next poll, late but not lost.
 *
 * After a gap (the mesh down across ticks) it does what Windmill does: the first missed tick
 * runs once, late, and the schedule goes on from now; the ticks in between are not run. (Windmill
 * queues each tick's job when the previous one starts; after a gap that job runs late and queues
 * the next tick after now.) A late tick is fired unless the schedule's previous run has not
 * started yet or started after this tick was due: that run is the late one.
 */
@Injectable()
export class ScheduleTicker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly log = new Logger(ScheduleTicker.name);
  private readonly settings: ScheduleTickerSettings;
  private readonly crons = new Map<string, CronSchedule>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly store: ScheduleStore,
    private readonly jobs: JobStore,
    private readonly starter: ScheduleRunStarter,
    private readonly metrics: TriggerMetrics,
    @Optional() @Inject(SCHEDULE_TICKER_SETTINGS) settings?: ScheduleTickerSettings,
  ) {
    this.settings = settings ?? DEFAULT_TICKER_SETTINGS;
  }

  onApplicationBootstrap(): void {
    this.schedule(0);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** Fires what is due; the number of schedules claimed (a full batch means: look again now). */
  pollOnce(): Promise<number> {
    return this.store.claimDue(this.settings.aheadMs, this.settings.batch, async (rows, query) => {
      await Promise.all(rows.map((row) => this.tick(row, query)));
      return rows.length;
    });
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      let claimed = 0;
      this.running = this.pollOnce()
        .then((n) => {
          claimed = n;
        })
        .catch((error: unknown) => {
          this.log.warn(`schedule poll failed: ${error instanceof Error ? error.message : String(error)}`);
        })
        .finally(() => {
          this.running = undefined;
          this.schedule(claimed >= this.settings.batch ? 0 : this.settings.pollMs);
        });
    }, delayMs);
  }

  private async tick(row: ScheduleRow, query: Query): Promise<TickOutcome> {
    const tick = row.next_fire_at!;
    const now = new Date();
    let cron: CronSchedule;
    try {
      cron = this.cronOf(row);
    } catch (error) {
      // Checked when saved: only a timezone the runtime stopped knowing gets here.
      await this.store.advance(query, row, null, `invalid schedule: ${messageOf(error)}`, false);
      this.metrics.failed('schedule');
      return 'refused';
    }
    if (row.paused_until && row.paused_until > tick) {
      await this.store.advance(query, row, cron.nextAfter(row.paused_until), row.error, false);
      return 'skipped';
    }
    const pauseOver = row.paused_until !== null;
    const late = now.getTime() - tick.getTime() > this.settings.lateAfterMs;
    const next = cron.nextAfter(late ? now : tick);
    if (await this.skips(row, tick, late, query)) {
      await this.store.advance(query, row, next, row.error, pauseOver);
      return 'skipped';
    }
    const jobId = tickJobId(row.workspace_id, row.path, tick);
    const recorded = await this.store.recordRun(query, {
      workspace_id: row.workspace_id,
      schedule_path: row.path,
      scheduled_for: tick,
      job_id: jobId,
      script_path: row.script_path,
      is_flow: row.is_flow,
    });
    if (!recorded) {
      // The tick has its run already (the schedule was edited back onto a tick it had fired).
      await this.store.advance(query, row, next, row.error, pauseOver);
      return 'skipped';
    }
    try {
      await this.starter.start(row, {
        path: row.script_path,
        isFlow: row.is_flow,
        args: row.args ?? {},
        jobId,
        scheduledFor: tick,
        tag: row.tag,
        trigger: { kind: 'schedule', path: row.path },
      });
    } catch (error) {
      await this.store.forgetRun(query, jobId);
      this.metrics.failed('schedule');
      if (error instanceof MeshError && REFUSALS.has(error.code)) {
        this.log.warn(`schedule ${row.workspace_id}/${row.path} could not start its run: ${error.message}`);
        await this.store.advance(query, row, next, error.message, pauseOver);
        return 'refused';
      }
      // Transient: the tick stays due and is tried again at the next poll.
      this.log.warn(
        `schedule ${row.workspace_id}/${row.path}: run not started, retrying: ${messageOf(error)}`,
      );
      return 'retry';
    }
    this.metrics.fired('schedule');
    await this.store.advance(query, row, next, null, pauseOver);
    return 'fired';
  }

  /**
   * Whether this tick gives way to the schedule's previous run: with `no_flow_overlap` while
   * that run has not ended (Windmill skips the tick), or, for a late tick, when that run has not
   * started or started after this tick was due (it is the one late run after a gap).
   */
  private async skips(row: ScheduleRow, tick: Date, late: boolean, query: Query): Promise<boolean> {
    if (!late && !row.no_flow_overlap) return false;
    const previous = await this.store.previousRun(query, row.workspace_id, row.path, tick);
    if (!previous) return false;
    const job = await this.jobs.load(previous.job_id);
    if (!job) return false;
    const ended = isTerminalJobStatus(job.status);
    if (row.no_flow_overlap && !ended) return true;
    if (!late) return false;
    // Started after this tick was due (it may have ended since): it is the late run.
    if (job.started_at !== null) return job.started_at > tick;
    return !ended;
  }

  private cronOf(row: ScheduleRow): CronSchedule {
    const key = `${row.timezone}\u0000${row.schedule}`;
    let cron = this.crons.get(key);
    if (!cron) {
      cron = CronSchedule.of(row.schedule, row.timezone);
      if (this.crons.size > 10_000) this.crons.clear();
      this.crons.set(key, cron);
    }
    return cron;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
