import type {
  FlowStatus,
  JobKind,
  JobStatus,
  MultitaskStrategy,
  RecordingRef,
  TriggerKind,
} from '@flowmesh/contracts';

/** A job's tag rule and other engine state that is not part of the public job. */
export interface JobRuntime {
  /** The run asked for a tag: its steps run on it (unless `preserve_step_tags` and they name their own). */
  customTag?: boolean;
  preserveStepTags?: boolean;
  /** Every step of the flow runs in the process that drives it, whatever its tag. */
  sameWorker?: boolean;
  /** Id of the job whose token this job acts with (itself, or an ancestor). */
  tokenJob?: string;
  /** Wall-clock limit of a script job. */
  timeoutMs?: number;
  /** The job has a work message of its own (else it is driven inside its parent's driver). */
  dispatched?: boolean;
  /** The step `i` of this flow sleeps until `at` (epoch ms) before it starts. */
  sleep?: { step: number; at: number };
  /** The step `i` of this flow began at `at` (epoch ms): its duration metric, whichever worker ends it. */
  stepStarted?: { step: number; at: number };
  /** The step `i` of this flow is retried at `at` (epoch ms). */
  retry?: { step: number; at: number };
  /** The approval gate in front of step `i` times out at `at` (epoch ms). */
  suspendTimeout?: { step: number; at: number };
  /** A preview of the caller's agent drafts (`RunFlowRequest.agent_drafts`), set on the run's flow. */
  agentDrafts?: boolean;
  /** The `ai_agent` definitions a pinned run resolved when it started (`RunFlowRequest.pin_agents`). */
  pinnedAgents?: Record<string, unknown>;
  /** The run records or replays its model calls (`RunFlowRequest.recording`), set on the run's flow. */
  recording?: RecordingRef;
  /** An AI step parked on its agent's request (approval, question), answered until `until` (ISO). */
  agentWait?: { kind: 'approval' | 'question'; call_id: string; until: string };
  /** The run is a nested agent tool (`RunFlowRequest.agent_tool`), set on the run's flow. */
  agentTool?: boolean;
  /**
   * What the run's agent steps do when another run uses their memory: the run's
   * `multitask_strategy`, else its flow's; set on the run's flow when either names one.
   */
  multitaskStrategy?: MultitaskStrategy;
  /** How deep the run nests as an agent tool (`RunFlowRequest.agent_depth`), set on the run's flow. */
  agentDepth?: number;
  /** The result a synchronous caller gets from `early_return`, once known. */
  earlyResult?: { value: unknown; stepId: string | null };
  applyPreprocessor?: boolean;
  /** Concurrency key a root flow holds a slot under. */
  concurrencyKey?: string;
  /** Result cache key of this job (set when `cache_ttl` applies). */
  cacheKey?: string;
  cacheTtlS?: number;
  deleteAfterSecs?: number;
  /** Debounce key of a job waiting out its debounce delay. */
  debounceKey?: string;
  /** Arguments accumulated from debounced runs, appended when the job starts. */
  accumulateArgs?: string[];
  /** The saved flows this job runs inside, outermost first (subflows, flows run as agent tools). */
  flowChain?: string[];
  /** The step (a leaf job in a flow) reads `flow_env` of this flow job. */
  envJob?: string;
  /** A leaf step's entrypoint (`preprocessor` for the preprocessor module). */
  entrypoint?: string;
  memoryMb?: number;
  /** A step's own concurrency limit (rawscript `concurrent_limit`, `custom_concurrency_key`). */
  concurrency?: { key: string; limit: number; windowS: number };
  /** A debounced step waits until `at` under `key` (a later run's step with the key replaces it). */
  debounce?: { key: string; at: number };
  /** The flow ended because a step's stop_after_if fired (its parent loop breaks, its branch stops its flow). */
  stopped?: { skipIfStopped: boolean };
  /** Where this body's modules sit in the flow document (`value.modules[2].value.`), for error paths. */
  fieldBase?: string;
  /** `default` for the default branch of a branchone (its modules are `default[i]`). */
  modulesField?: 'modules' | 'default';
  /** The start checks of the flow (skip_expr, cache) ran. */
  startChecked?: boolean;
  /** The error a flow's failure module handles, with the step that failed. */
  failure?: { error: unknown };
  /** Actions an agent-runtime step reported, copied to its module status when it ends. */
  agentActions?: unknown[];
  agentActionsSuccess?: boolean[];
}

/** A row of `job`, as the engine reads and writes it. */
export interface JobRecord {
  id: string;
  workspace: string;
  kind: JobKind;
  parent_job: string | null;
  root_job: string;
  path: string | null;
  script_hash: string | null;
  flow_step_id: string | null;
  language: string | null;
  raw_code: string | null;
  raw_lock: string | null;
  raw_flow: Record<string, unknown> | null;
  args: Record<string, unknown>;
  status: JobStatus;
  result: unknown;
  flow_status: FlowStatus | null;
  runtime: JobRuntime;
  created_by: string;
  on_behalf_of: string;
  email: string;
  tag: string;
  priority: number | null;
  skipped: boolean;
  canceled_by: string | null;
  canceled_reason: string | null;
  created_at: Date;
  scheduled_for: Date | null;
  started_at: Date | null;
  completed_at: Date | null;
  duration_ms: number | null;
  wake_at: Date | null;
  wake_seq: number;
  /** The kind of trigger that started the run (`schedule`, `webhook`, `http`, ...); unset otherwise. */
  trigger_kind?: TriggerKind | null;
  /** That trigger's path (a schedule's, a route's, the item's own for a webhook). */
  trigger_path?: string | null;
  /** Set only on a row read while taking its lease. */
  lease_owner?: string | null;
}

export const FLOW_KINDS: readonly JobKind[] = ['flow', 'flowpreview'];

export function isFlowKind(kind: JobKind): boolean {
  return kind === 'flow' || kind === 'flowpreview';
}
