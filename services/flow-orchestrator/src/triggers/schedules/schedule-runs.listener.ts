import { jobEvents, MeshError, type JobCompletedEvent } from '@flowmesh/contracts';
import { HandleEvent } from '@flowmesh/messaging';
import { Controller, Logger } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { JobStore } from '../../store/job.store.js';
import type { JobRecord } from '../../store/job.record.js';
import { ScheduleRunStarter } from './schedule-run.starter.js';
import { ScheduleStore, type ScheduleRow, type ScheduleRunRow } from './schedule.store.js';
import { failureHandlerDue, failureHistoryNeeded, recoveredFrom } from './handler-rules.js';
import { handlerTarget } from './schedule.validator.js';
import { handlerJobId } from './tick-job-id.js';
import { TriggerMetrics } from '../trigger.metrics.js';
import { KeyedDrains } from './keyed-drains.js';

const TRANSIENT = new Set(['UNAVAILABLE', 'TIMEOUT', 'INTERNAL']);

type Handler = 'on_failure' | 'on_recovery' | 'on_success';

/** A handler run to start: which handler, and the args Windmill passes it. */
interface HandlerRun {
  readonly handler: Handler;
  readonly args: Record<string, unknown>;
}

/**
 * Follows the end of every run (`evt.job.completed`, a durable consumer: one replica handles each
 * event, redelivered until acknowledged) and, for a schedule's run, records it and starts the
 * schedule's handlers as Windmill does (`windmill-queue`, `apply_schedule_handlers`), with
 * Windmill's argument names plus the handler's `extra_args`:
 *
 * - `on_failure` after `on_failure_times` failures in a row (with `on_failure_exact`, only on
 *   exactly that one, the streak's `times`-th, which needs a success before it): the failed
 *   result's keys (`error`), `schedule_path`, `workspace_id`, `job_id`, `path`, `is_flow`,
 *   `started_at`, `email`, `failed_times`;
 * - `on_recovery` once a failure is followed by `on_recovery_times` successes in a row: the failed
 *   result's keys, `error_started_at`, `schedule_path`, `path`, `is_flow`, `success_result`,
 *   `success_times`, `success_started_at`;
 * - `on_success` after each success: `schedule_path`, `path`, `is_flow`, `success_result`,
 *   `success_started_at`.
 *
 * The rules read the runs before, so a schedule's runs are handled in tick order, one replica at
 * a time (`handleEnded`). Idempotent per job id: a handler's job id is derived from the run's, and
 * the run is marked handled only once its handlers started, so a redelivered event starts nothing
 * twice.
 */
@Controller()
export class ScheduleRunsListener {
  private readonly log = new Logger(ScheduleRunsListener.name);
  private readonly drains = new KeyedDrains(4);

  constructor(
    private readonly store: ScheduleStore,
    private readonly jobs: JobStore,
    private readonly starter: ScheduleRunStarter,
    private readonly metrics: TriggerMetrics,
  ) {}

  @HandleEvent(jobEvents.completed, {
    durable: 'orchestrator-schedule-runs',
    deliverPolicy: 'new',
    concurrency: 32,
  })
  async onCompleted(@Payload() event: JobCompletedEvent): Promise<void> {
    if (event.parent_job !== null) return;
    const run = await this.store.completeRun(event.job_id, event.success, new Date(event.completed_at));
    if (!run || run.handled) return;
    const schedule = await this.store.get(run.workspace_id, run.schedule_path);
    if (schedule && hasHandlers(schedule)) {
      const { workspace_id: workspace, schedule_path: path } = run;
      await this.drains.run(`${workspace}/${path}`, () =>
        this.store.withHandlerLock(workspace, path, () => this.handleEnded(workspace, path)),
      );
      return;
    }
    await this.recordLate(run);
    await this.store.markHandled(run.job_id);
  }

  /**
   * Handles the schedule's ended runs in tick order, up to the first that has not ended: its end
   * handles those after it. Runs that overlap (one outlasting its tick) may end out of order; the
   * handlers then still see each run after every run of an earlier tick, so a streak, a failure
   * or a recovery is seen once, as if they had ended in order.
   */
  private async handleEnded(workspace: string, path: string): Promise<void> {
    for (;;) {
      const run = await this.store.firstUnhandled(workspace, path);
      if (!run || run.completed_at === null) return;
      const job = await this.recordLate(run);
      const schedule = await this.store.get(workspace, path);
      if (schedule && job) {
        for (const handler of await this.handlersFor(schedule, run, job))
          await this.startHandler(schedule, run, handler);
      }
      await this.store.markHandled(run.job_id);
    }
  }

  /** How late the run started after its tick, in the trigger metrics; its job. */
  private async recordLate(run: ScheduleRunRow): Promise<JobRecord | undefined> {
    const job = await this.jobs.load(run.job_id);
    if (job?.started_at && job.scheduled_for)
      this.metrics.late('schedule', (job.started_at.getTime() - job.scheduled_for.getTime()) / 1_000);
    return job;
  }

  private async handlersFor(
    schedule: ScheduleRow,
    run: ScheduleRunRow,
    job: JobRecord,
  ): Promise<HandlerRun[]> {
    const common = { schedule_path: schedule.path, path: run.script_path, is_flow: run.is_flow };
    if (run.success === false) {
      if (!schedule.on_failure) return [];
      const times = Math.max(1, schedule.on_failure_times ?? 1);
      const exact = schedule.on_failure_exact ?? false;
      const needed = failureHistoryNeeded(times, exact);
      const before = needed > 0 ? await this.store.endedRunsBefore(run, needed) : [];
      if (!failureHandlerDue(times, exact, before)) return [];
      return [
        {
          handler: 'on_failure',
          args: {
            ...resultArgs(job.result),
            ...common,
            workspace_id: run.workspace_id,
            job_id: run.job_id,
            started_at: iso(job.started_at),
            email: schedule.email,
            failed_times: times,
            ...(schedule.on_failure_extra_args ?? {}),
          },
        },
      ];
    }
    const handlers: HandlerRun[] = [];
    if (schedule.on_success)
      handlers.push({
        handler: 'on_success',
        args: {
          ...common,
          success_result: job.result,
          success_started_at: iso(job.started_at),
          ...(schedule.on_success_extra_args ?? {}),
        },
      });
    if (schedule.on_recovery) {
      const times = Math.max(1, schedule.on_recovery_times ?? 1);
      const failed = recoveredFrom(times, await this.store.endedRunsBefore(run, times));
      if (failed) {
        const failedJob = await this.jobs.load(failed.job_id);
        handlers.push({
          handler: 'on_recovery',
          args: {
            ...resultArgs(failedJob?.result),
            error_started_at: iso(failedJob?.started_at ?? null),
            ...common,
            success_result: job.result,
            success_times: times,
            success_started_at: iso(job.started_at),
            ...(schedule.on_recovery_extra_args ?? {}),
          },
        });
      }
    }
    return handlers;
  }

  private async startHandler(
    schedule: ScheduleRow,
    run: ScheduleRunRow,
    { handler, args }: HandlerRun,
  ): Promise<void> {
    const prefixed = schedule[handler];
    if (!prefixed) return;
    const target = handlerTarget(prefixed);
    try {
      await this.starter.start(
        { ...schedule, schedule_path: schedule.path },
        {
          path: target.path,
          isFlow: target.isFlow,
          args,
          jobId: handlerJobId(run.job_id, handler),
        },
      );
    } catch (error) {
      // One that passes (the registry or the database unreachable) is tried again: the event
      // comes back. One that cannot start as it stands (gone, no rights) is reported, not retried.
      if (!(error instanceof MeshError) || TRANSIENT.has(error.code)) throw error;
      this.log.warn(
        `schedule ${schedule.workspace_id}/${schedule.path}: ${handler} ${prefixed} did not start: ${error.message}`,
      );
      this.metrics.failed('schedule');
    }
  }
}

function hasHandlers(schedule: ScheduleRow): boolean {
  return Boolean(schedule.on_failure || schedule.on_recovery || schedule.on_success);
}

/** Windmill passes a result's keys as args, and anything that is not an object as `error`. */
function resultArgs(result: unknown): Record<string, unknown> {
  if (result !== null && typeof result === 'object' && !Array.isArray(result))
    return result as Record<string, unknown>;
  return { error: result ?? null };
}

function iso(date: Date | null | undefined): string | null {
  return date ? date.toISOString() : null;
}
