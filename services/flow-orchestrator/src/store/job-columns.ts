import type { JobRecord, JobRuntime } from './job.record.js';

/** The `job` table's columns as `JobRecord` has them, and how they travel to and from Postgres. */
export const COLUMNS = [
  'id',
  'workspace',
  'kind',
  'parent_job',
  'root_job',
  'path',
  'script_hash',
  'flow_step_id',
  'language',
  'raw_code',
  'raw_lock',
  'raw_flow',
  'args',
  'status',
  'result',
  'flow_status',
  'runtime',
  'created_by',
  'on_behalf_of',
  'email',
  'tag',
  'priority',
  'skipped',
  'canceled_by',
  'canceled_reason',
  'created_at',
  'scheduled_for',
  'started_at',
  'completed_at',
  'duration_ms',
  'wake_at',
  'trigger_kind',
  'trigger_path',
] as const;
export type Column = (typeof COLUMNS)[number];

export const JSON_COLUMNS = new Set<Column>(['raw_flow', 'args', 'result', 'flow_status', 'runtime']);
/**
 * Marks a `flow_status` whose modules live in `job_flow_module` rows (a large flow's, written a
 * changed module at a time): reads put them back, so no reader sees the difference.
 */
export const MODULES_IN_ROWS = '_modules_in_rows';
const FLOW_STATUS_READ = `CASE WHEN job.flow_status ? '${MODULES_IN_ROWS}'
    THEN jsonb_set(job.flow_status - '${MODULES_IN_ROWS}', '{modules}', COALESCE(
      (SELECT jsonb_agg(m.status ORDER BY m.idx) FROM job_flow_module m WHERE m.job_id = job.id), '[]'::jsonb))
    ELSE job.flow_status END AS flow_status`;
/** The columns a read selects (the row must be named `job`). */
export const SELECT_COLUMNS = [...COLUMNS, 'wake_seq']
  .map((column) => (column === 'flow_status' ? FLOW_STATUS_READ : column))
  .join(', ');

/** Jobs a worker does not run as a script: flows (driven) and AI steps (agent-runtime's). */
export const NOT_SCRIPT_KINDS: ReadonlySet<string> = new Set([
  'flow',
  'flowpreview',
  'aiagent',
  'aidecision',
]);

export interface RawRow extends Record<string, unknown> {
  id: string;
}

export function encode(column: Column, value: unknown): unknown {
  if (value === undefined)
    return JSON_COLUMNS.has(column) ? (column === 'args' || column === 'runtime' ? '{}' : null) : null;
  if (JSON_COLUMNS.has(column)) return value === null ? null : JSON.stringify(value);
  return value;
}

export function decode(row: RawRow): JobRecord {
  return {
    ...(row as unknown as JobRecord),
    args: (row.args as Record<string, unknown> | null) ?? {},
    runtime: (row.runtime as JobRuntime | null) ?? {},
    priority: row.priority === null || row.priority === undefined ? null : Number(row.priority),
  };
}
