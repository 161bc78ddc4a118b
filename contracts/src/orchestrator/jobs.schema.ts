import { z } from 'zod';
import { RecordingRefSchema } from '../ai/recording.schema.js';
import { MemoryKeySchema } from '../memory/memory.schema.js';
import { MultitaskStrategySchema } from '../memory/memory-lock.schema.js';
import { ActorSchema } from '../registry/identity.schema.js';
import { JobKindSchema, JobStatusSchema } from './job.schema.js';
import { TriggerEventSchema, TriggerRefSchema } from './trigger.schema.js';

/** A worker tag: one NATS subject token. */
export const WorkerTagSchema = z
  .string()
  .regex(/^[a-z0-9_-]+$/, "must be a worker tag of lowercase letters, digits, '-' or '_'");

const caller = { actor: ActorSchema, workspace: z.string().min(1) };

/** The most agents one pinned run resolves (linked steps and nested agent tools together). */
export const MAX_PINNED_AGENTS = 100;

/** What `pin_agents` resolved: `ai_agent` path -> its value when the run started. */
export const PinnedAgentsSchema = z
  .record(z.string().min(1), z.unknown())
  .refine((agents) => Object.keys(agents).length <= MAX_PINNED_AGENTS, {
    message: `must name at most ${MAX_PINNED_AGENTS} agents`,
  });
export type PinnedAgents = z.infer<typeof PinnedAgentsSchema>;
const ArgsSchema = z.record(z.string(), z.unknown()).default({});

const runOptions = {
  args: ArgsSchema,
  /** Worker tag the job runs on (flows: `flow` when absent; steps inherit it unless `preserve_step_tags`). */
  tag: WorkerTagSchema.optional(),
  /** Start no earlier than this (ISO date-time). */
  scheduled_for: z.iso.datetime({ offset: true }).optional(),
  /** A caller-chosen job id: the same id twice starts one job (idempotent retries). */
  job_id: z.uuid().optional(),
  priority: z.number().optional(),
  /**
   * A run from a trigger (webhook, HTTP route, event, ...): the runnable's preprocessor (a flow's
   * `preprocessor_module`, a script's `preprocessor` export) runs first, its result the input.
   */
  apply_preprocessor: z.boolean().optional(),
  /** The trigger that started the run, recorded on the job (`trigger_kind`, `trigger`). */
  trigger: TriggerRefSchema.optional(),
  /**
   * With `apply_preprocessor`: the event the preprocessor receives. A runnable with a
   * preprocessor runs with the args `{ event }` (Windmill's v2 format); one without runs with
   * `args` as given.
   */
  trigger_event: TriggerEventSchema.optional(),
};

/**
 * Runs a flow: a saved one by `path`, or the flow value in `value` (preview; `path` then only
 * names it). Answers the job id as soon as the job is accepted (queued durably).
 */
export const RunFlowRequestSchema = z
  .object({
    ...caller,
    path: z.string().min(1).optional(),
    /** An OpenFlow FlowValue (`{ modules, ... }`), or a whole OpenFlow (`{ summary, value }`). */
    value: z.record(z.string(), z.unknown()).optional(),
    /**
     * The run's memory id (a chat conversation, a session, a customer): the memory its `aiagent`
     * steps with `window` or `compaction` memory read and write, unless a step names its own. A
     * uuid is used as is; any other string is hashed per workspace and flow. Kept in
     * `flow_status.memory_id`; without it such steps run stateless.
     */
    memory_id: MemoryKeySchema.optional(),
    /**
     * What this run's agent steps do when another run uses their memory (`enqueue`, `reject`,
     * `interrupt`); overrides the flow's `multitask_strategy`, whose default is `enqueue`.
     */
    multitask_strategy: MultitaskStrategySchema.optional(),
    /**
     * A preview (`value`) runs the caller's drafts of the `ai_agent` resources its steps link,
     * where there is one (000, Drafts): each step reads the draft when it starts, as the run's
     * identity, so the agent's configuration never enters the job.
     */
    agent_drafts: z.boolean().optional(),
    /**
     * Pin the run's agents: every `ai_agent` its steps link (and the agents those link as tools,
     * at any depth) is read once, as the run's identity, when the run starts; its steps use those
     * definitions, so an edit of an agent mid-run changes nothing. Without it resolution is live.
     */
    pin_agents: z.boolean().optional(),
    /**
     * The definitions a pinned run resolved (path -> the `ai_agent` value), carried by the runs an
     * agent starts for its nested agent tools so they use the same ones. Previews only: a saved
     * flow's agents are never replaced by the caller's.
     */
    pinned_agents: PinnedAgentsSchema.optional(),
    /**
     * Record every model answer of the run, or answer its model calls from a recording
     * (`RecordingRef`): kept on the run, carried to its AI steps and the runs their agent tools start.
     */
    recording: RecordingRefSchema.optional(),
    /**
     * The saved flows the caller runs inside (an agent step running a flow tool passes its own
     * run's), outermost first: the run's nesting counts from there (`FLOWMESH_MAX_FLOW_DEPTH`).
     */
    flow_chain: z.array(z.string().min(1).max(1000)).max(1000).optional(),
    /**
     * The run is a nested agent tool, started by an agent step: its AI steps are offered neither
     * the question tool nor tools that require approval, linked agents' included (000, Limits: it
     * writes no flow status a person answers, and its parent waits on it). It only takes away.
     */
    agent_tool: z.boolean().optional(),
    /** How deep this agent tool run nests: 1 for an agent tool of a top-level step, and so on. */
    agent_depth: z.int().min(1).max(1000).optional(),
    ...runOptions,
  })
  .strict()
  .refine((req) => req.path !== undefined || req.value !== undefined, {
    message: 'give the path of a saved flow or a flow value',
    path: ['value'],
  })
  .refine((req) => !req.agent_drafts || req.value !== undefined, {
    message: 'only a preview (a flow value) runs agent drafts',
    path: ['agent_drafts'],
  })
  .refine((req) => !req.pinned_agents || req.value !== undefined, {
    message: 'only a preview (a flow value) carries pinned agent definitions',
    path: ['pinned_agents'],
  });
export type RunFlowRequest = z.infer<typeof RunFlowRequestSchema>;

/** Runs a script: a saved one by `path` (and `hash` to pin a version), or inline `content`. */
export const RunScriptRequestSchema = z
  .object({
    ...caller,
    path: z.string().min(1).optional(),
    hash: z.string().optional(),
    content: z.string().optional(),
    language: z.string().optional(),
    lock: z.string().optional(),
    ...runOptions,
  })
  .strict()
  .refine((req) => req.path !== undefined || (req.content !== undefined && req.language !== undefined), {
    message: 'give the path of a saved script, or content and language',
    path: ['content'],
  });
export type RunScriptRequest = z.infer<typeof RunScriptRequestSchema>;

export const RunJobReplySchema = z.object({ job_id: z.uuid() });
export type RunJobReply = z.infer<typeof RunJobReplySchema>;

export const JobIdRequestSchema = z.object({ ...caller, id: z.uuid() }).strict();
export type JobIdRequest = z.infer<typeof JobIdRequestSchema>;

/**
 * Restarts an ended flow run from one of its top-level steps (Windmill's `restart_flow`): a new
 * job runs the same flow value with the same args, the steps before `step_id` not run again (their
 * results are the earlier run's), `step_id` and the steps after it run. For a sequential for loop
 * or branchall, `branch_or_iteration_n` keeps its first n iterations or branches too.
 */
export const RestartFlowRequestSchema = z
  .object({
    ...caller,
    id: z.uuid(),
    step_id: z.string().min(1).max(255),
    branch_or_iteration_n: z.int().min(0).optional(),
    /** The new job's id, chosen by the caller: the same id twice starts one run. */
    job_id: z.uuid().optional(),
  })
  .strict();
export type RestartFlowRequest = z.infer<typeof RestartFlowRequestSchema>;

/** The longest one `wait_result` request waits; a caller that waits longer asks again. */
export const MAX_RESULT_WAIT_MS = 25_000;

/** A job's result once it ends, waited for up to `timeout_ms` (0: answered at once). */
export const WaitJobResultRequestSchema = z
  .object({ ...caller, id: z.uuid(), timeout_ms: z.int().min(0).max(MAX_RESULT_WAIT_MS) })
  .strict();
export type WaitJobResultRequest = z.infer<typeof WaitJobResultRequestSchema>;

/** Windmill's `get_result_maybe`: `completed` false while the job runs. */
export const JobResultReplySchema = z.object({
  completed: z.boolean(),
  success: z.boolean().optional(),
  result: z.unknown(),
  started: z.boolean(),
  status: JobStatusSchema,
});
export type JobResultReply = z.infer<typeof JobResultReplySchema>;

/** The result of one node (module id) of a flow run, wherever it sits in the tree. */
export const ResultByNodeRequestSchema = z
  .object({ ...caller, flow_job_id: z.uuid(), node_id: z.string().min(1) })
  .strict();
export const ResultByNodeReplySchema = z.object({ result: z.unknown() });

export const CancelJobRequestSchema = z
  .object({ ...caller, id: z.uuid(), reason: z.string().max(1_000).optional() })
  .strict();
export const CancelJobReplySchema = z.object({
  /** False when the job had already ended. */
  cancelled: z.boolean(),
});
export type CancelJobRequest = z.infer<typeof CancelJobRequestSchema>;

/**
 * Resumes (or, `approve: false`, disapproves) a flow suspended on an approval step. `resume_id`
 * identifies the approval (one per approver link); `approver` is who approved, recorded in
 * `flow_status.approvers`; `payload` becomes the next step's `resume` input (validated against
 * the step's `resume_form` schema when it has one). The caller (the HTTP layer) has already
 * checked a signed URL or authenticated the approver; the engine checks the step's own rules
 * (`user_auth_required`, `user_groups_required`, `self_approval_disabled`).
 */
export const ResumeJobRequestSchema = z
  .object({
    ...caller,
    id: z.uuid(),
    resume_id: z.number().int().nonnegative(),
    approver: z.string().max(255).optional(),
    payload: z.unknown().optional(),
    approve: z.boolean().default(true),
    /** True when the approver proved who they are (a bearer token); false for a signed URL. */
    authenticated: z.boolean().default(true),
  })
  .strict();
export type ResumeJobRequest = z.infer<typeof ResumeJobRequestSchema>;
/** `resumed`: enough approvals, the flow continues; `waiting`: more are needed; `cancelled`: disapproved. */
export const ResumeOutcomeSchema = z.enum(['resumed', 'waiting', 'cancelled']);
export type ResumeOutcome = z.infer<typeof ResumeOutcomeSchema>;
export const ResumeJobReplySchema = z.object({ outcome: ResumeOutcomeSchema });

export const ListJobsRequestSchema = z
  .object({
    ...caller,
    status: z.array(JobStatusSchema).optional(),
    kind: z.array(JobKindSchema).optional(),
    path: z.string().optional(),
    path_prefix: z.string().optional(),
    created_by: z.string().optional(),
    parent_job: z.uuid().optional(),
    root_job: z.uuid().optional(),
    tag: z.string().optional(),
    success: z.boolean().optional(),
    /** Include flow steps, iterations and branches (default: only jobs without a parent). */
    include_children: z.boolean().default(false),
    created_after: z.iso.datetime({ offset: true }).optional(),
    created_before: z.iso.datetime({ offset: true }).optional(),
    limit: z.number().int().min(1).max(1_000).default(100),
    offset: z.number().int().min(0).default(0),
  })
  .strict();
export type ListJobsRequest = z.infer<typeof ListJobsRequestSchema>;

export const JobLogsRequestSchema = z
  .object({
    ...caller,
    id: z.uuid(),
    /** Skip the first `offset` characters (from a previous `next_offset`). */
    offset: z.number().int().min(0).default(0),
  })
  .strict();
export type JobLogsRequest = z.infer<typeof JobLogsRequestSchema>;
export const JobLogsReplySchema = z.object({
  /** Lines joined by '\n', each ending with one. */
  logs: z.string(),
  next_offset: z.number().int(),
  completed: z.boolean(),
});
export type JobLogsReply = z.infer<typeof JobLogsReplySchema>;
