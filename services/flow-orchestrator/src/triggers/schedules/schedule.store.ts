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
   * due: whether the previous run still runs is decided at the tick), locked for the length of
   * `work`, which fires them in the same transaction. Other replicas pass over locked rows.
   */
  claimDue<T>(
    aheadMs: number,
    limit: number,
    work: (rows: ScheduleRow[], query: Query) => Promise<T>,
  ): Promise<T> {
    return this.lanes.transaction(async (query) => {
      const rows = await query<ScheduleRow>(
        `SELECT * FROM schedule
         WHERE enabled AND next_fire_at IS NOT NULL
           AND next_fire_at <= now() + make_interval(secs => $1::double precision / 1000)
           AND (NOT no_flow_overlap OR next_fire_at <= now())
         ORDER BY next_fire_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [aheadMs, limit],
      );
      return work(rows, query);
    });
  }

  /** The tick's run, once: false when the tick already has one (the guard against two runs). */
  async recordRun(
    query: Query,
    run: Pick<
      ScheduleRunRow,
      'workspace_id' | 'schedule_path' | 'scheduled_for' | 'job_id' | 'script_path' | 'is_flow'
    >,
  ): Promise<boolean> {
    const rows = await query(
      `INSERT INTO schedule_run (workspace_id, schedule_path, scheduled_for, job_id, script_path, is_flow)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING job_id`,
      [run.workspace_id, run.schedule_path, run.scheduled_for, run.job_id, run.script_path, run.is_flow],
    );
    return rows.length > 0;
  }

  async forgetRun(query: Query, jobId: string): Promise<void> {
    await query(`DELETE FROM schedule_run WHERE job_id = $1`, [jobId]);
  }

  /** After a tick: the next one, the error (null: cleared), and `paused_until` once passed. */
  async advance(
    query: Query,
    row: Pick<ScheduleRow, 'workspace_id' | 'path'>,
    next: Date | null,
    error: string | null,
    clearPause: boolean,
  ): Promise<void> {
    await query(
      `UPDATE schedule SET next_fire_at = $3, error = $4,
         paused_until = CASE WHEN $5::boolean THEN NULL ELSE paused_until END
       WHERE workspace_id = $1 AND path = $2`,
      [row.workspace_id, row.path, next, error, clearPause],
    );
  }

  /** The schedule's last run before `tick`, if any. */
  async previousRun(
    query: Query,
    workspace: string,
    path: string,
    tick: Date,
  ): Promise<ScheduleRunRow | undefined> {
    const rows = await query<ScheduleRunRow>(
      `SELECT * FROM schedule_run WHERE workspace_id = $1 AND schedule_path = $2 AND scheduled_for < $3
       ORDER BY scheduled_for DESC LIMIT 1`,
      [workspace, path, tick],
    );
    return rows[0];
  }

  /** Records a run's end (idempotent); the run, or undefined when the job is no schedule's run. */
  async completeRun(jobId: string, success: boolean, completedAt: Date): Promise<ScheduleRunRow | undefined> {
    const rows = await this.lanes.query<ScheduleRunRow>(
      `UPDATE schedule_run SET completed_at = COALESCE(completed_at, $2), success = COALESCE(success, $3)
       WHERE job_id = $1 RETURNING *`,
      [jobId, completedAt, success],
    );
    return rows[0];
  }

  async markHandled(jobId: string): Promise<void> {
    await this.lanes.query(`UPDATE schedule_run SET handled = true WHERE job_id = $1`, [jobId]);
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
