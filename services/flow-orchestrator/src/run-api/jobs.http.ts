import {
  JOB_KINDS,
  MemoryKeySchema,
  RecordingModeSchema,
  MultitaskStrategySchema,
  WorkerTagSchema,
  type JobStatus,
} from '@flowmesh/contracts';
import { z } from 'zod';
import type { JobFilter } from './list-jobs.service.js';

/** HTTP shapes of `/api/w/:workspace/jobs/...`, as Windmill's jobs API takes them. */
const ArgsSchema = z.record(z.string(), z.unknown());

/** `POST jobs/run/preview_flow`: `{ value, args, path?, tag? }`. */
export const PreviewFlowBodySchema = z.looseObject({
  value: z.record(z.string(), z.unknown()),
  args: ArgsSchema.default({}),
  path: z.string().min(1).optional(),
  tag: WorkerTagSchema.optional(),
  /** Run the caller's drafts of the agents the flow's steps link (`RunFlowRequest.agent_drafts`). */
  agent_drafts: z.boolean().optional(),
  /** Resolve every linked agent once, when the run starts (`RunFlowRequest.pin_agents`). */
  pin_agents: z.boolean().optional(),
});

/** `POST jobs/run/preview`: an inline script. */
export const PreviewScriptBodySchema = z.looseObject({
  content: z.string(),
  language: z.string().min(1),
  args: ArgsSchema.default({}),
  path: z.string().min(1).optional(),
  tag: WorkerTagSchema.optional(),
  lock: z.string().optional(),
});

/** Query options every run route takes. */
export const RunQuerySchema = z.looseObject({
  tag: WorkerTagSchema.optional(),
  job_id: z.uuid().optional(),
  scheduled_for: z.iso.datetime({ offset: true }).optional(),
  hash: z.string().optional(),
  /** A flow run's memory id (`RunFlowRequest.memory_id`). */
  memory_id: MemoryKeySchema.optional(),
  /** What a flow run's agent steps do when another run uses their memory (`RunFlowRequest.multitask_strategy`). */
  multitask_strategy: MultitaskStrategySchema.optional(),
  /** `?pin_agents=true`: a flow run resolves its linked agents once (`RunFlowRequest.pin_agents`). */
  pin_agents: z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .transform((value) => value === 'true')
    .optional(),
  /**
   * `?recording_mode=record|replay&recording_id=<uuid>`: a flow run records its model answers, or
   * answers its model calls from the recording with that id (`RunFlowRequest.recording`).
   */
  recording_mode: RecordingModeSchema.optional(),
  recording_id: z.uuid().optional(),
});

const trueOrFalse = z
  .enum(['true', 'false'], { error: 'must be true or false' })
  .transform((value) => value === 'true');

/**
 * A run by path is its webhook (Windmill's): the run options, and the webhook's own.
 * `skip_preprocessor=true` runs the item's `main` with the body as arguments even when it has a
 * preprocessor; `raw=true` adds the body as text (`raw_string`); `wrap_body=true` passes an
 * object body as `{ body }`; `include_header` / `include_query` (comma-separated names) add those
 * headers and query parameters to the arguments of a runnable without preprocessor; `payload`
 * (GET only) is the arguments as base64 JSON; `token` is the bearer token for a sender that
 * cannot set headers.
 */
export const WebhookQuerySchema = RunQuerySchema.extend({
  skip_preprocessor: trueOrFalse.optional(),
  raw: trueOrFalse.optional(),
  wrap_body: trueOrFalse.optional(),
  include_header: z.string().max(4_000).optional(),
  include_query: z.string().max(4_000).optional(),
  payload: z.string().optional(),
  token: z.string().optional(),
});

/** The query parameters that are the run API's options, not the webhook's own query. */
export const WEBHOOK_OPTIONS: ReadonlySet<string> = new Set(Object.keys(WebhookQuerySchema.shape));

export const LogOffsetQuerySchema = z.looseObject({
  log_offset: z.coerce.number().int().min(0).default(0),
});

export const CancelBodySchema = z.looseObject({ reason: z.string().max(1_000).optional() }).default({});

const flag = z.enum(['true', 'false']).transform((value) => value === 'true');
const csv = z.string().transform((value) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean),
);

/** `GET jobs/list?...` with Windmill's filter names. */
export const ListJobsQuerySchema = z
  .looseObject({
    created_by: z.string().optional(),
    script_path_exact: z.string().optional(),
    script_path_start: z.string().optional(),
    success: flag.optional(),
    running: flag.optional(),
    suspended: flag.optional(),
    job_kinds: csv.pipe(z.array(z.enum(JOB_KINDS))).optional(),
    parent_job: z.uuid().optional(),
    root_job: z.uuid().optional(),
    tag: z.string().optional(),
    created_before: z.iso.datetime({ offset: true }).optional(),
    created_after: z.iso.datetime({ offset: true }).optional(),
    is_flow_step: flag.optional(),
    per_page: z.coerce.number().int().min(1).max(1_000).default(100),
    page: z.coerce.number().int().min(1).default(1),
  })
  .transform((query): JobFilter => {
    const status: JobStatus[] | undefined =
      query.suspended === true
        ? ['suspended']
        : query.running === true
          ? ['running', 'suspended']
          : query.running === false
            ? ['queued']
            : undefined;
    return {
      ...(query.created_by === undefined ? {} : { created_by: query.created_by }),
      ...(query.script_path_exact === undefined ? {} : { path: query.script_path_exact }),
      ...(query.script_path_start === undefined ? {} : { path_prefix: query.script_path_start }),
      ...(query.success === undefined ? {} : { success: query.success }),
      ...(status === undefined ? {} : { status }),
      ...(query.job_kinds === undefined ? {} : { kind: query.job_kinds }),
      ...(query.parent_job === undefined ? {} : { parent_job: query.parent_job }),
      ...(query.root_job === undefined ? {} : { root_job: query.root_job }),
      ...(query.tag === undefined ? {} : { tag: query.tag }),
      ...(query.created_before === undefined ? {} : { created_before: query.created_before }),
      ...(query.created_after === undefined ? {} : { created_after: query.created_after }),
      include_children:
        query.is_flow_step === true || query.parent_job !== undefined || query.root_job !== undefined,
      limit: query.per_page,
      offset: (query.page - 1) * query.per_page,
    };
  });
