import { randomUUID } from 'node:crypto';
import {
  MeshError,
  parseOpenFlow,
  type CallerIdentity,
  type ParseOpenFlowResult,
  type FlowStatus,
  type FlowValue,
  type RunFlowRequest,
} from '@flowmesh/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { DEFAULT_FLOW_TAG } from '../engine/child-flows.js';
import { flowTooDeep } from '../engine/flow-depth.js';
import { ENGINE_CONFIG, type EngineConfig } from '../engine/engine.config.js';
import { EngineOutbox } from '../engine/engine-outbox.js';
import { initialFlowStatus } from '../engine/flow-status.util.js';
import { isValidTag } from '../engine/step-tags.js';
import { JobTokens } from '../registry/job-tokens.js';
import { RegistryGateway } from '../registry/registry.gateway.js';
import { ChatTranscript } from './chat-transcript.js';
import { Debouncer } from '../engine/debouncer.js';
import { creatorOf, principalOf } from './job-identity.js';
import type { JobRecord, JobRuntime } from '../store/job.record.js';
import { JobStore } from '../store/job.store.js';
import { pinAgents } from './pinned-agents.js';
import { runInputOf } from './preprocessor.js';
import { startsWithRunToken } from './run-token.js';
import type { SqlStatement } from '../store/sql-batch.js';
import { WriteGroups } from '../store/write-groups.js';
import { countModules, tooManyModules, WorkspaceLimits } from '../engine/workspace-limits.js';

const PARSED_LIMIT = 500;
const parsedFlows = new Map<string, ParseOpenFlowResult>();

/** A flow checked once per distinct value: clients run the same flows again and again. */
function parsedFlow(input: Record<string, unknown>): ParseOpenFlowResult {
  const key = JSON.stringify(input);
  let parsed = parsedFlows.get(key);
  if (!parsed) {
    parsed = parseOpenFlow(input);
    if (parsedFlows.size >= PARSED_LIMIT) parsedFlows.delete(parsedFlows.keys().next().value!);
    parsedFlows.set(key, parsed);
  }
  return parsed;
}

/**
 * A run restarting an ended one (`RestartFlowUseCase`): the earlier run's flow value, run as
 * it ran, and the status it starts with (the steps before the restart point already done).
 */
export interface FlowRestartStart {
  readonly raw: Record<string, unknown>;
  readonly status: FlowStatus;
}

/**
 * Starts a flow run: reads the saved flow (as the caller) or takes the value given, checks it,
 * issues the run's job token, and writes the job with its work message in one commit, so an
 * accepted run is never lost. Debounced and scheduled runs wait with a `wake_at` instead.
 */
@Injectable()
export class RunFlowUseCase {
  /**
   * Runs arrive in bursts (callers start the next runs as a worker ends a group of flows): the
   * writes of a burst commit as one statement (`WriteGroups`), and their work messages and
   * replies then leave together, in a few socket writes instead of a few per run.
   */
  constructor(
    private readonly jobs: JobStore,
    private readonly registry: RegistryGateway,
    private readonly tokens: JobTokens,
    private readonly debouncer: Debouncer,
    private readonly outbox: EngineOutbox,
    private readonly writes: WriteGroups,
    private readonly transcript: ChatTranscript,
    private readonly limits: WorkspaceLimits,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
  ) {}

  async run(req: RunFlowRequest, identity: CallerIdentity, restart?: FlowRestartStart): Promise<string> {
    const jobId = req.job_id ?? randomUUID();
    if (req.job_id && (await this.jobs.load(jobId))) return jobId;
    const tag = req.tag ?? DEFAULT_FLOW_TAG;
    if (!isValidTag(tag)) throw new MeshError('VALIDATION_FAILED', `"${tag}" is not a worker tag`);
    // A run token reads the flow as the run it starts (its principal's permissions), not with
    // its own scopes, which allow nothing but starting runs.
    const saved = req.value === undefined ? (req.path ?? null) : null;
    const runPath = saved !== null && startsWithRunToken(identity, saved, 'flows') ? saved : undefined;
    if (saved === null) startsWithRunToken(identity, null, 'flows');
    const issue = (onBehalfOf: string) =>
      this.registry.issueJobToken({
        token: req.actor.token,
        workspace: req.workspace,
        jobId,
        onBehalfOf,
        ttlSeconds: this.config.jobTokenTtlSeconds,
        ...(runPath === undefined ? {} : { runPath, runKind: 'flows' as const }),
      });
    const asRun = runPath === undefined ? undefined : await issue(principalOf(identity));
    const { value, raw, onBehalfOf, path, kind } = await this.resolve(
      req,
      asRun?.token ?? req.actor.token,
      restart?.raw,
    );
    await this.checkSize(req.workspace, value);
    const principal = onBehalfOf ?? principalOf(identity);
    const issued = asRun && principal === principalOf(identity) ? asRun : await issue(principal);
    const input = runInputOf(req, value.preprocessor_module !== undefined);
    const runtime: JobRuntime = { tokenJob: jobId };
    if (req.tag !== undefined) runtime.customTag = true;
    if (value.preserve_step_tags) runtime.preserveStepTags = true;
    if (value.same_worker) runtime.sameWorker = true;
    // A restart is not a new start: no skip_expr, no flow cache (the steps it keeps ran already).
    if (restart) runtime.startChecked = true;
    if (input.preprocess) runtime.applyPreprocessor = true;
    if (req.agent_drafts && kind === 'flowpreview') runtime.agentDrafts = true;
    if (req.agent_tool) runtime.agentTool = true;
    if (req.agent_depth !== undefined) runtime.agentDepth = req.agent_depth;
    if (req.recording) runtime.recording = req.recording;
    const multitask = req.multitask_strategy ?? value.multitask_strategy;
    if (multitask) runtime.multitaskStrategy = multitask;
    if (value.delete_after_secs !== undefined) runtime.deleteAfterSecs = value.delete_after_secs;
    if (value.flow_env && Object.keys(value.flow_env).length > 0) runtime.envJob = jobId;
    const chain = [...(req.flow_chain ?? []), ...(path ? [path] : [])];
    if (chain.length > this.config.maxFlowDepth) {
      const { message } = flowTooDeep(chain, this.config.maxFlowDepth);
      throw new MeshError('LIMIT_EXCEEDED', message);
    }
    if (chain.length > 0) runtime.flowChain = chain;
    // Read last: a run refused for its depth reads no agent.
    if (req.pinned_agents && kind === 'flowpreview') runtime.pinnedAgents = req.pinned_agents;
    else if (req.pin_agents)
      runtime.pinnedAgents = await pinAgents(
        this.registry,
        issued.token,
        req.workspace,
        value,
        runtime.agentDrafts === true,
      );
    const scheduledFor = req.scheduled_for ? new Date(req.scheduled_for) : null;
    const record: JobRecord = {
      id: jobId,
      workspace: req.workspace,
      kind,
      parent_job: null,
      root_job: jobId,
      path,
      script_hash: null,
      flow_step_id: null,
      language: null,
      raw_code: null,
      raw_lock: null,
      raw_flow: raw,
      args: input.args,
      status: 'queued',
      result: null,
      flow_status: restart?.status ?? {
        ...initialFlowStatus(value),
        ...(req.memory_id === undefined ? {} : { memory_id: req.memory_id }),
      },
      runtime,
      created_by: creatorOf(identity),
      on_behalf_of: principal,
      email: identity.email,
      tag,
      priority: req.priority ?? value.priority ?? null,
      skipped: false,
      canceled_by: null,
      canceled_reason: null,
      created_at: new Date(),
      scheduled_for: scheduledFor,
      started_at: null,
      completed_at: null,
      duration_ms: null,
      wake_at: scheduledFor && scheduledFor.getTime() > Date.now() ? scheduledFor : null,
      wake_seq: 0,
      trigger_kind: req.trigger?.kind ?? null,
      trigger_path: req.trigger?.path ?? null,
    };
    if (value.chat_input_enabled && req.memory_id !== undefined && path !== null)
      await this.transcript.userTurn({
        token: asRun?.token ?? req.actor.token,
        workspace: req.workspace,
        flowPath: path,
        conversation: req.memory_id,
        jobId,
        args: req.args,
      });
    const statements: SqlStatement[] = [this.tokens.store(jobId, issued.token, issued.expiresAt)];
    if (value.debounce_delay_s && value.debounce_delay_s > 0 && !restart) {
      await this.debouncer.submitFlow(record, value, statements);
      this.outbox.wake();
    } else {
      statements.push(this.jobs.insert(record, { onConflictDoNothing: true }));
      if (!record.wake_at) statements.push(this.jobs.dispatch(record));
      await this.writes.write({ id: jobId, statements, rows: new Set([jobId]) });
      this.outbox.afterCommit(statements);
    }
    return jobId;
  }

  /** A flow with more modules than its workspace allows is refused, naming the setting. */
  private async checkSize(workspace: string, value: FlowValue): Promise<void> {
    const modules = countModules(value);
    const { max_flow_modules: limit } = await this.limits.of(workspace);
    if (modules > limit)
      throw new MeshError('LIMIT_EXCEEDED', tooManyModules(modules, limit), {
        setting: 'max_flow_modules',
        limit,
        value: modules,
      });
  }

  /**
   * The flow to run, read as `token` (the caller's, or the run's for a run token). A restart of a
   * saved flow still reads it (the caller must be allowed to run it, and its `on_behalf_of` holds)
   * but runs `restartValue`, the value the earlier run ran, as Windmill's restart does.
   */
  private async resolve(
    req: RunFlowRequest,
    token: string,
    restartValue?: Record<string, unknown>,
  ): Promise<{
    value: FlowValue;
    raw: Record<string, unknown>;
    onBehalfOf: string | undefined;
    path: string | null;
    kind: 'flow' | 'flowpreview';
  }> {
    let input: Record<string, unknown>;
    let kind: 'flow' | 'flowpreview';
    let onBehalfOf: string | undefined;
    if (req.value !== undefined) {
      input = req.value;
      kind = 'flowpreview';
    } else {
      input = (await this.registry.getFlow(token, req.workspace, req.path!)).value;
      kind = 'flow';
    }
    if (restartValue !== undefined) {
      const saved = kind === 'flow' ? parsedFlow(input) : undefined;
      if (saved?.ok && saved.kind === 'openflow') onBehalfOf = saved.flow.on_behalf_of;
      input = restartValue;
    }
    const parsed = parsedFlow(input);
    if (!parsed.ok) {
      const first = parsed.errors[0];
      throw new MeshError(
        'VALIDATION_FAILED',
        `invalid flow: ${first ? `${first.path}: ${first.message}` : 'invalid'}${
          parsed.errors.length > 1 ? ` (and ${parsed.errors.length - 1} more)` : ''
        }`,
        { issues: parsed.errors },
      );
    }
    // Kept as written (notes, groups and unknown keys round-trip untouched).
    const raw = parsed.kind === 'openflow' ? (input.value as Record<string, unknown>) : input;
    if (parsed.kind === 'openflow') onBehalfOf = parsed.flow.on_behalf_of;
    return { value: parsed.value, raw, onBehalfOf, path: req.path ?? null, kind };
  }
}
