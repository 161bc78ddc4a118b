import type { Schedule } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { ConnectionLanes, type Query } from '../../store/connection-lanes.js';

/** A schedule's row: Windmill's fields, the owner's sealed token and the next tick. */
export interface ScheduleRow {
  workspace_id: string;
  path: string;
  edited_by: string;
  edited_at: Date;
  schedule: string;
  timezone: string;
  enabled: boolean;
  script_path: string;
  is_flow: boolean;
  args: Record<string, unknown> | null;
  email: string;
  permissioned_as: string;
  error: string | null;
  on_failure: string | null;
  on_failure_times: number | null;
  on_failure_exact: boolean | null;
  on_failure_extra_args: Record<string, unknown> | null;
  on_recovery: string | null;
  on_recovery_times: number | null;
  on_recovery_extra_args: Record<string, unknown> | null;
  on_success: string | null;
  on_success_extra_args: Record<string, unknown> | null;
  ws_error_handler_muted: boolean;
  retry: Record<string, unknown> | null;
  summary: string | null;
  description: string | null;
  no_flow_overlap: boolean;
  tag: string | null;
  paused_until: Date | null;
  cron_version: string | null;
  /** The owner's API token, sealed (`OwnerTokens`); never leaves the service. */
  owner_token: string;
  owner_token_prefix: string;
  /** The next tick to fire; null while disabled. */
  next_fire_at: Date | null;
}

/** The fields an edit sets (Windmill's `EditSchedule`), as stored. */
export type ScheduleSettings = Pick<
  ScheduleRow,
  | 'schedule'
  | 'timezone'
  | 'args'
  | 'on_failure'
  | 'on_failure_times'
  | 'on_failure_exact'
  | 'on_failure_extra_args'
  | 'on_recovery'
  | 'on_recovery_times'
  | 'on_recovery_extra_args'
  | 'on_success'
  | 'on_success_extra_args'
  | 'ws_error_handler_muted'
  | 'retry'
  | 'summary'
  | 'description'
  | 'no_flow_overlap'
  | 'tag'
  | 'paused_until'
  | 'cron_version'
>;

/** Who owns a schedule's runs: its last editor and that editor's sealed token. */
export type ScheduleOwner = Pick<
  ScheduleRow,
  'edited_by' | 'email' | 'permissioned_as' | 'owner_token' | 'owner_token_prefix'
>;

/** A run a tick started. */
export interface ScheduleRunRow {
  workspace_id: string;
  schedule_path: string;
  scheduled_for: Date;
  job_id: string;
  script_path: string;
  is_flow: boolean;
  completed_at: Date | null;
  success: boolean | null;
  handled: boolean;
  started: boolean;
}

/** What starting a tick's run needs: the run's row and its schedule's target and owner. */
export type TickRun = Pick<
  ScheduleRunRow,
  'workspace_id' | 'schedule_path' | 'scheduled_for' | 'job_id' | 'script_path' | 'is_flow'
> &
  Pick<ScheduleRow, 'args' | 'tag' | 'retry' | 'owner_token' | 'edited_by' | 'email'>;

/** What the ticker decided for a claimed schedule: its next tick, and the run of this one, if any. */
export interface TickPlan {
  readonly row: ScheduleRow;
  readonly next: Date | null;
  readonly clearPause: boolean;
  /** The tick's run to record and start; absent: the tick passes without one. */
  readonly fire?: { readonly tick: Date; readonly jobId: string };
}

export interface ListScheduleFilter {
  readonly scriptPath?: string;
  readonly isFlow?: boolean;
  readonly pathStart?: string;
  readonly args?: Record<string, unknown>;
  readonly limit: number;
  readonly offset: number;
}

const SETTINGS: ReadonlyArray<keyof ScheduleSettings> = [
  'schedule',
  'timezone',
  'args',
  'on_failure',
  'on_failure_times',
  'on_failure_exact',
  'on_failure_extra_args',
  'on_recovery',
  'on_recovery_times',
  'on_recovery_extra_args',
  'on_success',
  'on_success_extra_args',
  'ws_error_handler_muted',
  'retry',
  'summary',
  'description',
  'no_flow_overlap',
  'tag',
  'paused_until',
  'cron_version',
];
const JSON_FIELDS = new Set<string>([
  'args',
  'on_failure_extra_args',
  'on_recovery_extra_args',
  'on_success_extra_args',
  'retry',
]);
const OWNER: ReadonlyArray<keyof ScheduleOwner> = [
  'edited_by',
  'email',
  'permissioned_as',
  'owner_token',
  'owner_token_prefix',
];

const value = (field: string, v: unknown): unknown =>
  JSON_FIELDS.has(field) && v !== null && v !== undefined ? JSON.stringify(v) : (v ?? null);
const placeholder = (field: string, index: number): string =>
  JSON_FIELDS.has(field) ? `$${index}::jsonb` : `$${index}`;

/** Windmill's schedule object from a row (never the owner's token). */
export function scheduleOf(row: ScheduleRow): Schedule {
  return {
    workspace_id: row.workspace_id,
    path: row.path,
    edited_by: row.edited_by,
    edited_at: row.edited_at.toISOString(),
    schedule: row.schedule,
    timezone: row.timezone,
    enabled: row.enabled,
    script_path: row.script_path,
    is_flow: row.is_flow,
    args: row.args,
    extra_perms: {},
    email: row.email,
    permissioned_as: row.permissioned_as,
    error: row.error,
    on_failure: row.on_failure,
    on_failure_times: row.on_failure_times,
    on_failure_exact: row.on_failure_exact,
    on_failure_extra_args: row.on_failure_extra_args,
    on_recovery: row.on_recovery,
    on_recovery_times: row.on_recovery_times,
    on_recovery_extra_args: row.on_recovery_extra_args,
    on_success: row.on_success,
    on_success_extra_args: row.on_success_extra_args,
    ws_error_handler_muted: row.ws_error_handler_muted,
    retry: row.retry,
    summary: row.summary,
    description: row.description,
    no_flow_overlap: row.no_flow_overlap,
    tag: row.tag,
    paused_until: row.paused_until ? row.paused_until.toISOString() : null,
    cron_version: row.cron_version,
  };
}

/** Every statement on `schedule` and `schedule_run`. */
@Injectable()
export class ScheduleStore {
  constructor(private readonly lanes: ConnectionLanes) {}

  /** False when a schedule already has the path. */
  async insert(row: ScheduleRow): Promise<boolean> {
    const fields = Object.keys(row) as Array<keyof ScheduleRow>;
    const rows = await this.lanes.query(
      `INSERT INTO schedule (${fields.join(', ')}) VALUES (${fields.map((f, i) => placeholder(f, i + 1)).join(', ')})
       ON CONFLICT (workspace_id, path) DO NOTHING RETURNING path`,
      fields.map((f) => value(f, row[f])),
    );
    return rows.length > 0;
  }

  async get(workspace: string, path: string): Promise<ScheduleRow | undefined> {
    const rows = await this.lanes.query<ScheduleRow>(
      `SELECT * FROM schedule WHERE workspace_id = $1 AND path = $2`,
      [workspace, path],
    );
    return rows[0];
  }

  async exists(workspace: string, path: string): Promise<boolean> {
    const rows = await this.lanes.query(`SELECT 1 FROM schedule WHERE workspace_id = $1 AND path = $2`, [
      workspace,
      path,
    ]);
    return rows.length > 0;
  }

  /** Newest edit first, as Windmill lists them. */
  list(workspace: string, filter: ListScheduleFilter): Promise<ScheduleRow[]> {
    const where = ['workspace_id = $1'];
    const params: unknown[] = [workspace];
    if (filter.scriptPath !== undefined) {
      params.push(filter.scriptPath);
      where.push(`script_path = $${params.length}`);
    }
    if (filter.isFlow !== undefined) {
      params.push(filter.isFlow);
      where.push(`is_flow = $${params.length}`);
    }
    if (filter.pathStart !== undefined) {
      params.push(`${filter.pathStart.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      where.push(`path LIKE $${params.length}`);
    }
    if (filter.args !== undefined) {
      params.push(JSON.stringify(filter.args));
      where.push(`args @> $${params.length}::jsonb`);
    }
    params.push(filter.limit, filter.offset);
    return this.lanes.unprepared<ScheduleRow>(
      `SELECT * FROM schedule WHERE ${where.join(' AND ')} ORDER BY edited_at DESC, path
       LIMIT $${params.length - 1} OFFSET $${params.length}`,
      params,
    );
  }

  /**
   * Sets an edit and its new owner; the previous owner (to revoke its token), or undefined when
   * there is no such schedule.
   */
  async update(
    workspace: string,
    path: string,
    settings: ScheduleSettings,
    owner: ScheduleOwner,
    nextFireAt: (enabled: boolean) => Date | null,
  ): Promise<{ before: ScheduleRow; pending: string[] } | undefined> {
    return this.lanes.transaction(async (query) => {
      const [before] = await query<ScheduleRow>(
        `SELECT * FROM schedule WHERE workspace_id = $1 AND path = $2 FOR UPDATE`,
        [workspace, path],
      );
      if (!before) return undefined;
      const fields = [...SETTINGS, ...OWNER];
      const params = [
        ...SETTINGS.map((f) => value(f, settings[f])),
        ...OWNER.map((f) => owner[f]),
        nextFireAt(before.enabled),
        workspace,
        path,
      ];
      const n = fields.length;
      await query(
        `UPDATE schedule SET ${fields.map((f, i) => `${f} = ${placeholder(f, i + 1)}`).join(', ')},
           next_fire_at = $${n + 1}, edited_at = now(), error = NULL
         WHERE workspace_id = $${n + 2} AND path = $${n + 3}`,
        params,
      );
      return { before, pending: await forgetPending(query, workspace, path) };
    });
  }

  /**
   * Enables (with its next tick) or disables a schedule; the runs it forgot (`forgetPending`), or
   * undefined when there is no such schedule.
   */
  async setEnabled(
    workspace: string,
    path: string,
    enabled: boolean,
    email: string,
    nextFireAt: (row: ScheduleRow) => Date | null,
  ): Promise<string[] | undefined> {
    return this.lanes.transaction(async (query) => {
      const [row] = await query<ScheduleRow>(
        `SELECT * FROM schedule WHERE workspace_id = $1 AND path = $2 FOR UPDATE`,
        [workspace, path],
      );
      if (!row) return undefined;
      await query(
        `UPDATE schedule SET enabled = $3, email = $4, next_fire_at = $5, error = NULL
         WHERE workspace_id = $1 AND path = $2`,
        [workspace, path, enabled, email, enabled ? nextFireAt(row) : null],
      );
      return forgetPending(query, workspace, path);
    });
  }

  /** The deleted schedule (its owner's token to revoke) and its pending runs, or undefined. */
  async delete(
    workspace: string,
    path: string,
  ): Promise<{ row: ScheduleRow; pending: string[] } | undefined> {
    return this.lanes.transaction(async (query) => {
      const [row] = await query<ScheduleRow>(
        `DELETE FROM schedule WHERE workspace_id = $1 AND path = $2 RETURNING *`,
        [workspace, path],
      );
      if (!row) return undefined;
      const pending = await forgetPending(query, workspace, path);
      await query(`DELETE FROM schedule_run WHERE workspace_id = $1 AND schedule_path = $2`, [
        workspace,
        path,
      ]);
      return { row, pending };
    });
  }

  /**
   * Claims up to `limit` schedules due within `aheadMs` (those with `no_flow_overlap` only once
   * due: whether the previous run still runs is decided at the tick), `FOR UPDATE SKIP LOCKED` so
   * replicas share them, and in the same short transaction records the ticks' runs `plan` decides
   * (the primary key refuses a second run of a tick) and moves each schedule to its next tick.
   * The runs recorded, to start once committed.
   */
  claimTicks(
    aheadMs: number,
    limit: number,
    plan: (rows: ScheduleRow[], query: Query) => Promise<TickPlan[]>,
  ): Promise<{ claimed: number; runs: TickRun[] }> {
    return this.lanes.transaction(async (query) => {
      const rows = await query<ScheduleRow>(
        `SELECT * FROM schedule
         WHERE enabled AND next_fire_at IS NOT NULL
           AND next_fire_at <= now() + make_interval(secs => $1::double precision / 1000)
           AND (NOT no_flow_overlap OR next_fire_at <= now())
         ORDER BY next_fire_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [aheadMs, limit],
      );
      if (rows.length === 0) return { claimed: 0, runs: [] };
      const plans = await plan(rows, query);
      const fires = plans.filter((p) => p.fire !== undefined);
      const recorded = new Set<string>();
      if (fires.length > 0) {
        const inserted = await query<{ job_id: string }>(
          `INSERT INTO schedule_run (workspace_id, schedule_path, scheduled_for, job_id, script_path, is_flow)
           SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::uuid[], $5::text[], $6::boolean[])
           ON CONFLICT DO NOTHING RETURNING job_id`,
          [
            fires.map((p) => p.row.workspace_id),
            fires.map((p) => p.row.path),
            fires.map((p) => p.fire!.tick),
            fires.map((p) => p.fire!.jobId),
            fires.map((p) => p.row.script_path),
            fires.map((p) => p.row.is_flow),
          ],
        );
        for (const { job_id } of inserted) recorded.add(job_id);
      }
      await query(
        `UPDATE schedule s SET next_fire_at = v.next,
           paused_until = CASE WHEN v.clear THEN NULL ELSE s.paused_until END
         FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::boolean[]) AS v(workspace_id, path, next, clear)
         WHERE s.workspace_id = v.workspace_id AND s.path = v.path`,
        [
          plans.map((p) => p.row.workspace_id),
          plans.map((p) => p.row.path),
          plans.map((p) => p.next),
          plans.map((p) => p.clearPause),
        ],
      );
      const runs = fires
        .filter((p) => recorded.has(p.fire!.jobId))
        .map(({ row, fire }): TickRun => ({
          workspace_id: row.workspace_id,
          schedule_path: row.path,
          scheduled_for: fire!.tick,
          job_id: fire!.jobId,
          script_path: row.script_path,
          is_flow: row.is_flow,
          args: row.args,
          tag: row.tag,
          retry: row.retry,
          owner_token: row.owner_token,
          edited_by: row.edited_by,
          email: row.email,
        }));
      return { claimed: rows.length, runs };
    });
  }

  /** Each schedule's last run before the given tick (keyed `workspace/path`), where it has one. */
  async previousRuns(
    query: Query,
    ticks: ReadonlyArray<{ workspace: string; path: string; tick: Date }>,
  ): Promise<Map<string, ScheduleRunRow>> {
    if (ticks.length === 0) return new Map();
    const rows = await query<ScheduleRunRow>(
      `SELECT r.* FROM unnest($1::text[], $2::text[], $3::timestamptz[]) AS k(workspace_id, path, tick)
       CROSS JOIN LATERAL (
         SELECT * FROM schedule_run
         WHERE workspace_id = k.workspace_id AND schedule_path = k.path AND scheduled_for < k.tick
         ORDER BY scheduled_for DESC LIMIT 1
       ) r`,
      [ticks.map((t) => t.workspace), ticks.map((t) => t.path), ticks.map((t) => t.tick)],
    );
    return new Map(rows.map((row) => [`${row.workspace_id}/${row.schedule_path}`, row]));
  }

  /**
   * Runs the run use case accepted; their schedules' `error` is cleared (Windmill clears it then).
   * The job ids of those still recorded: an edit, a disable or a delete forgets the runs ahead of
   * their tick, and one forgotten while it started is not among them.
   */
  async started(runs: readonly TickRun[]): Promise<Set<string>> {
    if (runs.length === 0) return new Set();
    const rows = await this.lanes.query<{ job_id: string }>(
      `WITH marked AS (
         UPDATE schedule_run SET started = true WHERE job_id = ANY($1::uuid[])
         RETURNING job_id, workspace_id, schedule_path
       ), cleared AS (
         UPDATE schedule SET error = NULL
         WHERE error IS NOT NULL AND (workspace_id, path) IN (SELECT workspace_id, schedule_path FROM marked)
       )
       SELECT job_id FROM marked`,
      [runs.map((r) => r.job_id)],
    );
    return new Set(rows.map((row) => row.job_id));
  }

  /** A run that cannot start as its schedule stands: forgotten, and why recorded on the schedule. */
  async refused(run: TickRun, error: string): Promise<void> {
    await this.lanes.query(
      `WITH forgotten AS (DELETE FROM schedule_run WHERE job_id = $1)
       UPDATE schedule SET error = $4 WHERE workspace_id = $2 AND path = $3`,
      [run.job_id, run.workspace_id, run.schedule_path, error],
    );
  }

  /** Records `error` on a schedule (a tick that could not be planned). */
  async setError(
    query: Query,
    row: Pick<ScheduleRow, 'workspace_id' | 'path'>,
    error: string,
  ): Promise<void> {
    await query(`UPDATE schedule SET error = $3 WHERE workspace_id = $1 AND path = $2`, [
      row.workspace_id,
      row.path,
      error,
    ]);
  }

  /**
   * Recorded runs not started for `olderThanMs` (their replica died after the claim, or the start
   * failed for a reason that passes), claimed by moving `attempt_at` on, to start again.
   */
  claimStalled(olderThanMs: number, limit: number): Promise<TickRun[]> {
    return this.lanes.query<TickRun>(
      `WITH stalled AS (
         SELECT job_id FROM schedule_run
         WHERE NOT started AND attempt_at < now() - make_interval(secs => $1::double precision / 1000)
         ORDER BY attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED
       ), claimed AS (
         UPDATE schedule_run r SET attempt_at = now() FROM stalled WHERE r.job_id = stalled.job_id RETURNING r.*
       )
       SELECT c.workspace_id, c.schedule_path, c.scheduled_for, c.job_id, c.script_path, c.is_flow,
              s.args, s.tag, s.retry, s.owner_token, s.edited_by, s.email
       FROM claimed c JOIN schedule s ON s.workspace_id = c.workspace_id AND s.path = c.schedule_path`,
      [olderThanMs, limit],
    );
  }

  /**
   * Forgets ended, handled runs a schedule no longer needs: each keeps its last
   * `max(on_failure_times, on_recovery_times) + 1` handled runs (what its handlers read when the
   * next run is handled), the rest goes (the jobs themselves stay, as any job does). Up to `limit`
   * rows; the number removed.
   */
  async prune(limit: number): Promise<number> {
    const rows = await this.lanes.query(
      `DELETE FROM schedule_run r USING (
         SELECT job_id FROM (
           SELECT run.job_id,
             row_number() OVER (PARTITION BY run.workspace_id, run.schedule_path ORDER BY run.scheduled_for DESC) AS n,
             GREATEST(COALESCE(s.on_failure_times, 1), COALESCE(s.on_recovery_times, 1)) + 1 AS keep
           FROM schedule_run run
           JOIN schedule s ON s.workspace_id = run.workspace_id AND s.path = run.schedule_path
           WHERE run.completed_at IS NOT NULL AND run.handled
         ) ranked
         WHERE n > keep LIMIT $1
       ) old
       WHERE r.job_id = old.job_id AND r.handled
       RETURNING r.job_id`,
      [limit],
    );
    return rows.length;
  }

  /** Records a run's end (idempotent); the run, or undefined when the job is no schedule's run. */
  async completeRun(jobId: string, success: boolean, completedAt: Date): Promise<ScheduleRunRow | undefined> {
    const rows = await this.lanes.query<ScheduleRunRow>(
      `UPDATE schedule_run SET completed_at = COALESCE(completed_at, $2), success = COALESCE(success, $3),
         started = true
       WHERE job_id = $1 RETURNING *`,
      [jobId, completedAt, success],
    );
    return rows[0];
  }

  async markHandled(jobId: string): Promise<void> {
    await this.lanes.query(`UPDATE schedule_run SET handled = true WHERE job_id = $1`, [jobId]);
  }

  /**
   * Runs `work` holding the lock on the handling of a schedule's run ends (an advisory lock for
   * the length of a transaction: released when `work` ends or its connection dies), so that one
   * replica at a time handles them, in tick order.
   */
  withHandlerLock<T>(workspace: string, path: string, work: () => Promise<T>): Promise<T> {
    return this.lanes.transaction(async (query) => {
      await query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [
        JSON.stringify(['schedule-handlers', workspace, path]),
      ]);
      return work();
    });
  }

  /** The schedule's earliest run (by tick) whose end is not handled yet, ended or not. */
  async firstUnhandled(workspace: string, path: string): Promise<ScheduleRunRow | undefined> {
    const rows = await this.lanes.query<ScheduleRunRow>(
      `SELECT * FROM schedule_run WHERE workspace_id = $1 AND schedule_path = $2 AND NOT handled
       ORDER BY scheduled_for LIMIT 1`,
      [workspace, path],
    );
    return rows[0];
  }

  /** The ended runs of the schedule for `scriptPath` before `run`, newest first. */
  endedRunsBefore(run: ScheduleRunRow, limit: number): Promise<ScheduleRunRow[]> {
    return this.lanes.query<ScheduleRunRow>(
      `SELECT * FROM schedule_run WHERE workspace_id = $1 AND schedule_path = $2 AND script_path = $3
         AND scheduled_for < $4 AND completed_at IS NOT NULL
       ORDER BY scheduled_for DESC LIMIT $5`,
      [run.workspace_id, run.schedule_path, run.script_path, run.scheduled_for, limit],
    );
  }
}

/**
 * Runs of the schedule started ahead of a tick that has not come, forgotten so that their end
 * (they are cancelled) counts for no handler: Windmill clears a schedule's queued jobs when it is
 * edited, enabled, disabled or deleted. Their job ids, to cancel.
 */
async function forgetPending(query: Query, workspace: string, path: string): Promise<string[]> {
  const rows = await query<{ job_id: string }>(
    `DELETE FROM schedule_run WHERE workspace_id = $1 AND schedule_path = $2 AND completed_at IS NULL
       AND scheduled_for > now() RETURNING job_id`,
    [workspace, path],
  );
  return rows.map((row) => row.job_id);
}
