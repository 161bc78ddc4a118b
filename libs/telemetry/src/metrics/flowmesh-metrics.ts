/**
 * Every metric the mesh records, in one catalogue: the OpenTelemetry name an instrument is
 * created with, and the name Prometheus scrapes at `/metrics` (dots become underscores;
 * counters get `_total`; histograms add `_bucket`, `_sum` and `_count`). Units are in the
 * names because the Prometheus exporter does not append them. The dashboards under
 * `deploy/dashboards/` may only query names listed here (or the HTTP and GenAI metrics the
 * SDK records), which `deploy/test/observability.test.ts` checks.
 */
export const FLOWMESH_METRICS = {
  /** flow-orchestrator: root flows that began running. */
  flowsStarted: { name: 'flowmesh.flows.started', kind: 'counter', unit: '{flow}' },
  /** flow-orchestrator: root flows that ended, by `status` (completed, failed, cancelled). */
  flowsFinished: { name: 'flowmesh.flows.finished', kind: 'counter', unit: '{flow}' },
  /** flow-orchestrator: steps that began, by `step_type`. */
  stepsStarted: { name: 'flowmesh.steps.started', kind: 'counter', unit: '{step}' },
  /** flow-orchestrator: steps that ended, by `step_type` and `status` (success, failure, skipped). */
  stepsFinished: { name: 'flowmesh.steps.finished', kind: 'counter', unit: '{step}' },
  /** flow-orchestrator: time from a step's start to its end, by `step_type` and `status`. */
  stepDuration: { name: 'flowmesh.step.duration_seconds', kind: 'histogram', unit: 's' },
  /** flow-orchestrator: approvals a flow or an AI step is parked on, by `kind` (flow, agent). */
  parkedApprovals: { name: 'flowmesh.approvals.parked', kind: 'gauge', unit: '{approval}' },
  /** flow-orchestrator: runs a trigger started, by `kind` (schedule, http, webhook, ...; never by path). */
  triggerFires: { name: 'flowmesh.trigger.fires', kind: 'counter', unit: '{run}' },
  /** flow-orchestrator: how long after its due time a triggered run started (a schedule's tick), by `kind`. */
  triggerFireLateness: { name: 'flowmesh.trigger.fire_lateness_seconds', kind: 'histogram', unit: 's' },
  /** flow-orchestrator: triggers that could not start their run (refused target, owner's rights), by `kind`. */
  triggerFailures: { name: 'flowmesh.trigger.failures', kind: 'counter', unit: '{failure}' },
  /** flow-orchestrator: requests to HTTP routes refused before a run, by `reason` (not_found, method_not_allowed, unauthorized, too_large, bad_request). */
  triggerHttpRejections: { name: 'flowmesh.trigger.http_rejections', kind: 'counter', unit: '{request}' },
  /** Every process with a work or event consumer: messages in its queue, by `stream`, `consumer`, `tag`. */
  queueDepth: { name: 'flowmesh.queue.depth', kind: 'gauge', unit: '{message}' },
  /** Messages not yet delivered to the consumer (JetStream `num_pending`), by `stream`, `consumer`, `tag`. */
  consumerLag: { name: 'flowmesh.consumer.lag', kind: 'gauge', unit: '{message}' },
  /** Outbox rows committed but not yet published to JetStream, by `schema` (the service's). */
  outboxBacklog: { name: 'flowmesh.outbox.backlog', kind: 'gauge', unit: '{message}' },
  /** Every process: requests safe to repeat sent again after no reply (a service restarting), by `subject` and `code`. */
  requestRetries: { name: 'flowmesh.request.retries', kind: 'counter', unit: '{retry}' },
  /** agent-runtime: turns of the agent loop (one model call each), by `gen_ai_provider_name` and model. */
  agentIterations: { name: 'flowmesh.agent.iterations', kind: 'counter', unit: '{iteration}' },
  /** agent-runtime: history compactions (a summary replacing older messages). */
  agentCompactions: { name: 'flowmesh.agent.compactions', kind: 'counter', unit: '{compaction}' },
  /** agent-runtime: failed agent and decision steps, by `step_type`, `error_class` and `fault` (user, internal). */
  agentStepFailures: { name: 'flowmesh.agent.step_failures', kind: 'counter', unit: '{step}' },
  /** llm-gateway: tokens per provider, model and `gen_ai_token_type` (input, output). */
  llmTokens: { name: 'flowmesh.llm.tokens', kind: 'counter', unit: '{token}' },
  /** llm-gateway: estimated cost in US dollars per provider and model (models with a known price). */
  llmCost: { name: 'flowmesh.llm.cost_usd', kind: 'counter', unit: 'USD' },
  /** llm-gateway: tokens counted against spend budgets, by `workspace` (every chat through the gateway's chat path). */
  llmSpendTokens: { name: 'flowmesh.llm.spend_tokens', kind: 'counter', unit: '{token}' },
  /** llm-gateway: US dollars counted against spend budgets (the price table's), by `workspace`. */
  llmSpendUsd: { name: 'flowmesh.llm.spend_usd', kind: 'counter', unit: 'USD' },
  /** llm-gateway: model calls refused because a budget was spent, by `workspace` and `scope` (workspace, flow, run, token). */
  llmBudgetRefusals: { name: 'flowmesh.llm.budget_refusals', kind: 'counter', unit: '{call}' },
  /** llm-gateway: failed provider calls, by `gen_ai_provider_name`, `error_class` and `fault` (user, internal). */
  llmCallFailures: { name: 'flowmesh.llm.call_failures', kind: 'counter', unit: '{call}' },
  /** llm-gateway: time a call spent in the gateway itself (its whole time less the provider's). */
  gatewayAddedLatency: { name: 'flowmesh.gateway.added_latency_seconds', kind: 'histogram', unit: 's' },
  /** memory-service: memories saved, by `store` (database, s3). */
  memorySaves: { name: 'flowmesh.memory.saves', kind: 'counter', unit: '{save}' },
} as const satisfies Record<string, FlowmeshMetric>;

export interface FlowmeshMetric {
  readonly name: string;
  readonly kind: 'counter' | 'histogram' | 'gauge';
  readonly unit: string;
}

/** The series names Prometheus scrapes for one metric (what a PromQL query names). */
export function prometheusSeriesNames(metric: FlowmeshMetric): string[] {
  const base = metric.name.replace(/[^a-zA-Z0-9_]/g, '_');
  if (metric.kind === 'counter') return [base.endsWith('_total') ? base : `${base}_total`];
  if (metric.kind === 'histogram') return [`${base}_bucket`, `${base}_sum`, `${base}_count`];
  return [base];
}

/** Bucket bounds (seconds) for step durations: from a warm script (ms) to a long agent run. */
export const STEP_DURATION_BUCKETS_S = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900,
];
/** Bucket bounds (seconds) for the gateway's own share of a call: sub-millisecond to a second. */
export const ADDED_LATENCY_BUCKETS_S = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];
