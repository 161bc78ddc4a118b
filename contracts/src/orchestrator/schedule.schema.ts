import { z } from 'zod';
import { ItemPathSchema, itemPathProblem } from '../registry/access-path.js';
import { ActorSchema } from '../registry/identity.schema.js';
import { WorkerTagSchema } from './jobs.schema.js';

/**
 * Schedules, as Windmill's (`backend/windmill-api/src/schedule.rs`, openapi `Schedule`,
 * `NewSchedule`, `EditSchedule`): a cron expression with seconds in croner's syntax (Windmill v2),
 * an IANA timezone, the script or flow it runs with its args, and the failure, recovery and
 * success handlers. The field names are Windmill's, so a Windmill user's schedules move over
 * unchanged. The cron and the timezone are checked by the orchestrator (croner), which answers
 * VALIDATION_FAILED naming `schedule` or `timezone`.
 */

/** The most fire times a preview answers. */
export const MAX_SCHEDULE_PREVIEW = 50;

/** A cron expression: 5 fields, 6 with seconds first (Windmill writes 6), 7 with a year. */
export const CronExpressionSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(255)
  .refine((value) => [5, 6, 7].includes(value.split(/\s+/).length), {
    message: 'must be a cron expression of 6 fields (seconds first), or 5, or 7 with a year',
  });

/** An IANA timezone name (`Europe/Paris`, `UTC`); checked against the orchestrator's tz data. */
export const TimezoneSchema = z.string().trim().min(1, 'must not be empty').max(64);

/** Windmill's `cron_version`: `v2` (croner, the default) or `v1` (read with croner as well). */
export const CronVersionSchema = z.enum(['v1', 'v2']);

/**
 * A handler: Windmill's prefixed path, `script/<path>` or `flow/<path>` (`script/f/ops/alert`).
 * A bare item path is read as a script, as Windmill does.
 */
export const HandlerPathSchema = z
  .string()
  .max(1000)
  .superRefine((value, ctx) => {
    const match = /^(script|flow)\/(.*)$/.exec(value);
    const path = match ? match[2] : value;
    const problem = itemPathProblem(path);
    if (problem)
      ctx.addIssue({
        code: 'custom',
        message: `must be script/<path> or flow/<path> of a saved item: ${problem}`,
      });
  });

const ArgsSchema = z.record(z.string(), z.unknown());

/** Windmill's flow/script retry (`{constant: {attempts, seconds}, exponential: {...}}`), kept as written. */
const RetrySchema = z.record(z.string(), z.unknown());

/** What a schedule's editor sets, beside its path and target (Windmill's `EditSchedule`). */
const editableFields = {
  schedule: CronExpressionSchema,
  timezone: TimezoneSchema,
  args: ArgsSchema.nullish(),
  summary: z.string().max(512).nullish(),
  description: z.string().max(10_000).nullish(),
  /** Runs the failure handler after this many failures in a row (default 1). */
  on_failure: HandlerPathSchema.nullish(),
  on_failure_times: z.int().min(1).max(1_000).nullish(),
  /** Only on exactly the `on_failure_times`-th failure in a row, not on every later one. */
  on_failure_exact: z.boolean().nullish(),
  on_failure_extra_args: ArgsSchema.nullish(),
  /** Runs the recovery handler once `on_recovery_times` successes in a row follow a failure. */
  on_recovery: HandlerPathSchema.nullish(),
  on_recovery_times: z.int().min(1).max(1_000).nullish(),
  on_recovery_extra_args: ArgsSchema.nullish(),
  /** Runs the success handler after every successful run. */
  on_success: HandlerPathSchema.nullish(),
  on_success_extra_args: ArgsSchema.nullish(),
  /** Windmill's: the workspace error handler stays quiet for this schedule (kept, no workspace handler here). */
  ws_error_handler_muted: z.boolean().nullish(),
  retry: RetrySchema.nullish(),
  /** A tick whose previous run still runs is skipped. */
  no_flow_overlap: z.boolean().nullish(),
  /** Worker tag of the runs (else the target's own). */
  tag: WorkerTagSchema.max(50).nullish(),
  /** No run before this time (ISO date-time); cleared once passed. */
  paused_until: z.iso.datetime({ offset: true }).nullish(),
  cron_version: CronVersionSchema.nullish(),
};

/** `POST schedules/create`'s body (Windmill's `NewSchedule`). */
export const NewScheduleSchema = z.object({
  path: ItemPathSchema,
  script_path: ItemPathSchema,
  is_flow: z.boolean(),
  /** Default true. */
  enabled: z.boolean().nullish(),
  ...editableFields,
});
export type NewSchedule = z.infer<typeof NewScheduleSchema>;

/** `POST schedules/update/<path>`'s body (Windmill's `EditSchedule`: the target does not change). */
export const EditScheduleSchema = z.object(editableFields);
export type EditSchedule = z.infer<typeof EditScheduleSchema>;

/** `POST schedules/setenabled/<path>`'s body. */
export const SetScheduleEnabledSchema = z.object({ enabled: z.boolean() });

/** `POST schedules/preview`'s body: the next fire times of a cron in a timezone. */
export const PreviewScheduleSchema = z.object({
  schedule: CronExpressionSchema,
  timezone: TimezoneSchema,
  cron_version: CronVersionSchema.nullish(),
  /** How many fire times (default 5, as Windmill). */
  count: z.int().min(1).max(MAX_SCHEDULE_PREVIEW).nullish(),
});

/** `GET schedules/list`'s filters (Windmill's `ListScheduleQuery`). */
export const ListSchedulesFilterSchema = z.object({
  /** Only schedules of this script or flow path. */
  path: z.string().max(1000).optional(),
  is_flow: z.boolean().optional(),
  /** Only schedules whose path starts with this. */
  path_start: z.string().max(1000).optional(),
  /** Only schedules whose args contain this JSON object (`args @> ...`). */
  args: ArgsSchema.optional(),
  page: z.int().min(1).optional(),
  per_page: z.int().min(1).max(1_000).optional(),
});

const nullableArgs = ArgsSchema.nullable();

/** A schedule as Windmill answers it. */
export const ScheduleSchema = z.object({
  workspace_id: z.string(),
  path: z.string(),
  /** Who last edited it; its runs act as that user (`permissioned_as`). */
  edited_by: z.string(),
  edited_at: z.string(),
  schedule: z.string(),
  timezone: z.string(),
  enabled: z.boolean(),
  script_path: z.string(),
  is_flow: z.boolean(),
  args: nullableArgs,
  extra_perms: z.record(z.string(), z.boolean()),
  email: z.string(),
  /** `u/<edited_by>`: whose permissions the runs have. */
  permissioned_as: z.string(),
  /** Why the last tick could not start its run (null once one starts). */
  error: z.string().nullable(),
  on_failure: z.string().nullable(),
  on_failure_times: z.int().nullable(),
  on_failure_exact: z.boolean().nullable(),
  on_failure_extra_args: nullableArgs,
  on_recovery: z.string().nullable(),
  on_recovery_times: z.int().nullable(),
  on_recovery_extra_args: nullableArgs,
  on_success: z.string().nullable(),
  on_success_extra_args: nullableArgs,
  ws_error_handler_muted: z.boolean(),
  retry: RetrySchema.nullable(),
  summary: z.string().nullable(),
  description: z.string().nullable(),
  no_flow_overlap: z.boolean(),
  tag: z.string().nullable(),
  paused_until: z.string().nullable(),
  cron_version: z.string().nullable(),
});
export type Schedule = z.infer<typeof ScheduleSchema>;

const caller = { actor: ActorSchema, workspace: z.string().min(1) };

export const CreateScheduleRequestSchema = z.object({ ...caller, ...NewScheduleSchema.shape }).strict();
export type CreateScheduleRequest = z.infer<typeof CreateScheduleRequestSchema>;

export const SchedulePathRequestSchema = z.object({ ...caller, path: ItemPathSchema }).strict();
export type SchedulePathRequest = z.infer<typeof SchedulePathRequestSchema>;

export const UpdateScheduleRequestSchema = z
  .object({ ...caller, path: ItemPathSchema, ...EditScheduleSchema.shape })
  .strict();
export type UpdateScheduleRequest = z.infer<typeof UpdateScheduleRequestSchema>;

export const SetScheduleEnabledRequestSchema = z
  .object({ ...caller, path: ItemPathSchema, ...SetScheduleEnabledSchema.shape })
  .strict();
export type SetScheduleEnabledRequest = z.infer<typeof SetScheduleEnabledRequestSchema>;

export const ListSchedulesRequestSchema = z
  .object({ ...caller, ...ListSchedulesFilterSchema.shape })
  .strict();
export type ListSchedulesRequest = z.infer<typeof ListSchedulesRequestSchema>;

export const PreviewScheduleRequestSchema = z.object({ ...caller, ...PreviewScheduleSchema.shape }).strict();
export type PreviewScheduleRequest = z.infer<typeof PreviewScheduleRequestSchema>;

/** The schedule's path: what Windmill's create and update answer. */
export const SchedulePathReplySchema = z.object({ path: z.string() });
export const ListSchedulesReplySchema = z.object({ schedules: z.array(ScheduleSchema) });
export const ScheduleExistsReplySchema = z.object({ exists: z.boolean() });
export const SetScheduleEnabledReplySchema = z.object({ path: z.string(), enabled: z.boolean() });
export const DeleteScheduleReplySchema = z.object({ path: z.string(), deleted: z.boolean() });
/** The next fire times, ISO date-times in UTC, earliest first. */
export const PreviewScheduleReplySchema = z.object({ next: z.array(z.string()) });
