import { MeshError } from '@flowmesh/contracts';
import {
  Inject,
  Injectable,
  Logger,
  Optional,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import type { Query } from '../../store/connection-lanes.js';
import { EngineOutbox } from '../../engine/engine-outbox.js';
import { CancelJobUseCase } from '../../jobs/cancel-job.use-case.js';
import { JobStore } from '../../store/job.store.js';
import { CronSchedule } from './cron-schedule.js';
import { ScheduleRunStarter } from './schedule-run.starter.js';
import { ScheduleStore, type ScheduleRow, type TickPlan, type TickRun } from './schedule.store.js';
import { tickJobId } from './tick-job-id.js';
import { givesWay } from './tick-rules.js';
import { TriggerMetrics } from '../trigger.metrics.js';

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
  /**
   * A tick claimed this long after it was due is late: the mesh (or every ticker) was down. Less
   * late, it runs and the ticks after it follow from it (a busy moment catches up, loses none).
   */
  readonly lateAfterMs: number;
  /** Schedules claimed per transaction. */
  readonly batch: number;
  /** Runs started at once (each waits on the registry and the job insert). */
  readonly startsAtOnce: number;
  /** A recorded run not started after this long is started again (its replica died, or the registry did not answer). */
  readonly stalledAfterMs: number;
}

export const SCHEDULE_TICKER_SETTINGS = Symbol('SCHEDULE_TICKER_SETTINGS');
export const DEFAULT_TICKER_SETTINGS: ScheduleTickerSettings = {
  pollMs: 100,
  aheadMs: 1_000,
  lateAfterMs: 2_000,
  batch: 500,
  startsAtOnce: 64,
  stalledAfterMs: 3_000,
};

/** Jobs `JobStore.wakeDue` wakes per statement. */
const WAKE_BATCH = 500;

/** Polls between two looks for runs left unstarted. */
const STALLED_EVERY = 10;

/** Polls between two prunes of `schedule_run` (about a minute at the default poll). */
const PRUNE_EVERY = 600;

/** Errors that say the run cannot start as the schedule stands: recorded, and the tick passes. */
const REFUSALS = new Set([
  'VALIDATION_FAILED',
  'NOT_FOUND',
  'PERMISSION_DENIED',
  'UNAUTHENTICATED',
  'UNSUPPORTED',
  'LIMIT_EXCEEDED',
]);

/**
 * Fires schedules, exactly once per tick whatever the number of orchestrator replicas. Every
 * replica (service role) polls the schedules due within `aheadMs`, `FOR UPDATE SKIP LOCKED`, so
 * each schedule is claimed by one of them; in that short transaction it records each tick's run
 * (`schedule_run`, primary key schedule + tick: the guard against a second run) and moves
 * `next_fire_at` on. Once committed it starts the runs through the run use cases, many at once,
 * each with a job id derived from its tick, waiting for the tick (`scheduled_for`). A run
 * recorded but not started (its replica died in between, or the registry did not answer) is
 * started again by any replica after `stalledAfterMs`; the run use case, finding its job id
 * taken, starts nothing new if the first start went through.
 *
 * Like Windmill, a tick whose run cannot start because the schedule is wrong (target gone, owner
 * without rights) records `error` on the schedule and passes; the next run that starts clears it.
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
  private polls = 0;
  /** Ticks whose waiting runs this replica wakes itself, at the tick (timer by tick time). */
  private readonly armed = new Map<number, NodeJS.Timeout>();

  constructor(
    private readonly store: ScheduleStore,
    private readonly jobs: JobStore,
    private readonly starter: ScheduleRunStarter,
    private readonly metrics: TriggerMetrics,
    private readonly outbox: EngineOutbox,
    private readonly cancels: CancelJobUseCase,
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
    for (const timer of this.armed.values()) clearTimeout(timer);
    this.armed.clear();
    await this.running;
  }

  /**
   * Fires what is due: claims it (one short transaction), then starts the runs it recorded, and
   * starts again the recorded runs left unstarted. The number of schedules claimed (a full batch
   * means: look again now).
   */
  async pollOnce(): Promise<number> {
    const { claimed, runs } = await this.store.claimTicks(
      this.settings.aheadMs,
      this.settings.batch,
      (rows, query) => this.plan(rows, query),
    );
    await this.startAll(runs);
    // Runs left unstarted are looked for once a second: they are seconds old when they count.
    if (++this.polls % STALLED_EVERY === 0)
      await this.startAll(await this.store.claimStalled(this.settings.stalledAfterMs, this.settings.batch));
    // Now and then, the runs' rows no handler will read again (a schedule a second makes 86 400 a day).
    if (this.polls % PRUNE_EVERY === 0) await this.store.prune(10_000);
    return claimed;
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
          this.log.warn(`schedule poll failed: ${messageOf(error)}`);
        })
        .finally(() => {
          this.running = undefined;
          this.schedule(claimed >= this.settings.batch ? 0 : this.settings.pollMs);
        });
    }, delayMs);
  }

  /** What each claimed schedule does at its tick: pass it (paused, overlapping, a late repeat) or fire it. */
  private async plan(rows: ScheduleRow[], query: Query): Promise<TickPlan[]> {
    const now = new Date();
    const checks: Array<{ workspace: string; path: string; tick: Date }> = [];
    const drafts: Array<{ row: ScheduleRow; tick: Date; cron: CronSchedule; late: boolean } | TickPlan> = [];
    for (const row of rows) {
      const tick = row.next_fire_at!;
      let cron: CronSchedule;
      try {
        cron = this.cronOf(row);
      } catch (error) {
        // Checked when saved: only a timezone the runtime stopped knowing gets here.
        await this.store.setError(query, row, `invalid schedule: ${messageOf(error)}`);
        this.metrics.failed('schedule');
        drafts.push({ row, next: null, clearPause: false });
        continue;
      }
      if (row.paused_until && row.paused_until > tick) {
        drafts.push({ row, next: cron.nextAfter(row.paused_until), clearPause: false });
        continue;
      }
      const late = now.getTime() - tick.getTime() > this.settings.lateAfterMs;
      if (late || row.no_flow_overlap) checks.push({ workspace: row.workspace_id, path: row.path, tick });
      drafts.push({ row, tick, cron, late });
    }
    const previous = await this.store.previousRuns(query, checks);
    const jobs = await this.jobs.loadMany([...previous.values()].map((run) => run.job_id));
    return drafts.map((draft): TickPlan => {
      if (!('cron' in draft)) return draft;
      const { row, tick, cron, late } = draft;
      const next = cron.nextAfter(late ? now : tick);
      const clearPause = row.paused_until !== null;
      const before = previous.get(`${row.workspace_id}/${row.path}`);
      if (
        before &&
        givesWay({ noFlowOverlap: row.no_flow_overlap, tick, late }, before, jobs.get(before.job_id))
      )
        return { row, next, clearPause };
      return { row, next, clearPause, fire: { tick, jobId: tickJobId(row.workspace_id, row.path, tick) } };
    });
  }

  /** Starts the recorded runs, a bounded number at once; records which started and which cannot. */
  private async startAll(runs: readonly TickRun[]): Promise<void> {
    const started: TickRun[] = [];
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < runs.length) {
        const run = runs[next++];
        if (await this.start(run)) started.push(run);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.settings.startsAtOnce, runs.length) }, lane));
    const recorded = await this.store.started(started);
    for (const run of started) {
      if (recorded.has(run.job_id)) {
        this.metrics.fired('schedule');
        this.wakeAt(run.scheduled_for);
      } else await this.withdraw(run);
    }
  }

  /**
   * A run started ahead of its tick whose schedule was edited, disabled or deleted as it started:
   * the change forgot the run (and cancelled its job, if it was there yet), so it is cancelled
   * here too, before its tick comes.
   */
  private async withdraw(run: TickRun): Promise<void> {
    await this.cancels
      .cancel(
        run.workspace_id,
        run.job_id,
        run.edited_by,
        `schedule ${run.schedule_path} changed as this run started`,
      )
      .catch((error: unknown) => {
        this.log.warn(
          `schedule ${run.workspace_id}/${run.schedule_path}: a withdrawn run was not cancelled: ${messageOf(error)}`,
        );
      });
  }

  /**
   * A run started ahead waits for its tick (`wake_at`); the timer of parked jobs would queue it
   * at its next poll (up to `FLOWMESH_TIMER_POLL_MS`, 100 ms, late). The replica that started it
   * queues it at the tick instead, with every other job due then; the timer stays the fallback.
   */
  private wakeAt(tick: Date): void {
    const at = tick.getTime();
    if (this.stopped || this.armed.has(at) || at <= Date.now()) return;
    const timer = setTimeout(
      () => {
        this.armed.delete(at);
        void this.wakeDue().catch((error: unknown) => {
          this.log.warn(`waking the runs of a tick failed (the timer will): ${messageOf(error)}`);
        });
      },
      at - Date.now() + 1,
    );
    timer.unref();
    this.armed.set(at, timer);
  }

  private async wakeDue(): Promise<void> {
    let woken = 0;
    for (let round = 0; round < 4; round++) {
      const n = await this.jobs.wakeDue();
      woken += n;
      if (n < WAKE_BATCH) break;
    }
    if (woken > 0) this.outbox.wake();
  }

  private async start(run: TickRun): Promise<boolean> {
    try {
      await this.starter.start(run, {
        path: run.script_path,
        isFlow: run.is_flow,
        args: run.args ?? {},
        jobId: run.job_id,
        scheduledFor: run.scheduled_for,
        tag: run.tag,
        retry: run.retry,
        trigger: { kind: 'schedule', path: run.schedule_path },
      });
      return true;
    } catch (error) {
      this.metrics.failed('schedule');
      const where = `schedule ${run.workspace_id}/${run.schedule_path}`;
      if (error instanceof MeshError && REFUSALS.has(error.code)) {
        this.log.warn(`${where} could not start its run: ${error.message}`);
        await this.store.refused(run, error.message);
      } else {
        // Transient: the recorded run is started again once stalled (`claimStalled`).
        this.log.warn(`${where}: run not started yet, will retry: ${messageOf(error)}`);
      }
      return false;
    }
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
