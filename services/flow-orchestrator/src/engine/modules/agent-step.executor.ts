import { randomUUID } from 'node:crypto';
import {
  agentStepContract,
  isTerminalJobStatus,
  MeshError,
  type AiAgent,
  type InputTransform,
  type RecordingRef,
  type MultitaskStrategy,
} from '@flowmesh/contracts';
import { MeshClient } from '@flowmesh/messaging';
import { Injectable } from '@nestjs/common';
import type { JobRecord } from '../../store/job.record.js';
import { JobStore } from '../../store/job.store.js';
import { JobTokens } from '../../registry/job-tokens.js';
import { RegistryGateway } from '../../registry/registry.gateway.js';
import { childPath } from '../child-flows.js';
import { ExpressionEvaluator } from '../expressions/expression.evaluator.js';
import { evaluateInputTransforms } from '../input-transforms.js';
import {
  done,
  PARKED,
  type ModuleContext,
  type ModuleOutcome,
  type ModuleProgress,
} from '../module-outcome.js';
import { ScopedTokens } from '../scoped-token.js';
import { WorkspaceLimits } from '../workspace-limits.js';
import { errorObject } from '../steps/leaf-step.runner.js';
import { stepTag } from '../step-tags.js';
import { endedRecord, leafRecord } from './leaf-record.js';
import { evaluateToolInputs, type EvaluatedToolInputs } from './agent-tool-inputs.js';
import { outcomeOf } from './leaf.executor.js';

/**
 * aiagent and aidecision steps: a job handed to agent-runtime (`agent.step.start`), which runs
 * it and completes it (`orchestrator.agent_step.complete`); the flow parks meanwhile. Without an
 * agent-runtime answering, the step fails at once.
 */
@Injectable()
export class AgentStepExecutor {
  constructor(
    private readonly evaluator: ExpressionEvaluator,
    private readonly jobs: JobStore,
    private readonly client: MeshClient,
    private readonly tokens: JobTokens,
    private readonly scopedTokens: ScopedTokens,
    private readonly registry: RegistryGateway,
    private readonly limits: WorkspaceLimits,
  ) {}

  async run(ctx: ModuleContext): Promise<ModuleProgress> {
    if (ctx.status.type === 'InProgress' && ctx.status.job) {
      const row = await this.jobs.load(ctx.status.job);
      if (row && isTerminalJobStatus(row.status)) return done(withActions(outcomeOf(row), row));
      if (row) return PARKED;
    }
    const { run, module } = ctx;
    const value = module.value as
      AiAgent | { type: 'aidecision'; input_transforms: Record<string, InputTransform> };
    const jobId = randomUUID();
    const tag = stepTag(run, module);
    const base = {
      id: jobId,
      kind: value.type,
      tag,
      path: childPath(run, module.id),
      args: {} as Record<string, unknown>,
      runtime: { tokenJob: run.runtime.tokenJob ?? run.id, dispatched: true },
    } as const;
    let record: JobRecord;
    try {
      const scoped = await this.scopedTokens.forModule(run, module, jobId);
      const args = await evaluateInputTransforms(
        this.evaluator,
        value.input_transforms as Record<string, InputTransform>,
        ctx.scope,
        `${ctx.fieldPath}.value.input_transforms`,
      );
      record = {
        ...leafRecord(run, module, {
          ...base,
          args,
          runtime: { ...base.runtime, tokenJob: scoped.tokenJob },
        }),
        status: 'running',
        started_at: new Date(),
      };
      await ctx.saveProgress({ type: 'InProgress', id: module.id, job: jobId }, [
        ...scoped.statements,
        this.jobs.insert(record),
      ]);
    } catch (error) {
      const failed = leafRecord(run, module, base);
      return done(this.end(failed, { error: errorObject(error) }));
    }
    try {
      const jobToken = await this.tokens.tokenOf(record.runtime.tokenJob!);
      const runContext = await this.runContext(run);
      const { max_agent_iterations, max_agent_tool_calls, max_agent_depth } = await this.limits.of(
        run.job.workspace,
      );
      const toolInputs =
        value.type === 'aiagent'
          ? await this.toolInputsOf(value, ctx, jobToken, runContext)
          : ({} as EvaluatedToolInputs);
      const reply = await this.client.request(agentStepContract.start, {
        job_id: jobId,
        workspace: run.job.workspace,
        kind: value.type,
        root_job: run.job.root_job,
        flow_job: run.id,
        step_id: module.id,
        module: value,
        args: record.args,
        tag,
        job_token: jobToken,
        flow_input: run.flowInput,
        ...(run.job.path ? { flow_path: run.job.path } : {}),
        ...(Object.keys(toolInputs).length > 0 ? { tool_inputs: toolInputs } : {}),
        ...(run.runtime.flowChain ? { flow_chain: run.runtime.flowChain } : {}),
        // The workspace's caps: the step's own settings cannot raise them.
        caps: { max_agent_iterations, max_agent_tool_calls, max_agent_depth },
        ...runContext,
      });
      if (reply.accepted) return PARKED;
      return done(
        this.end(record, {
          error: { name: 'AgentStepRefused', message: `agent-runtime refused step ${module.id}` },
        }),
      );
    } catch (error) {
      const unanswered =
        error instanceof MeshError && (error.code === 'UNAVAILABLE' || error.code === 'TIMEOUT');
      const result = unanswered
        ? {
            error: {
              name: 'AgentRuntimeUnavailable',
              message: `no agent runtime answered: step ${module.id} (${value.type}) could not start (${error.message})`,
            },
          }
        : { error: errorObject(error) };
      return done(this.end(record, result));
    }
  }

  /**
   * The step's tools' `javascript` inputs, evaluated in the flow's scope: its inline tools', or
   * those of the `ai_agent` it links (read as the step's identity, its draft first in a preview of
   * drafts; one it cannot read is left to agent-runtime, which reports it), with the step's
   * `tool_inputs` over them.
   */
  private async toolInputsOf(
    step: AiAgent,
    ctx: ModuleContext,
    jobToken: string,
    run: { agent_drafts?: true; pinned_agents?: Record<string, unknown> },
  ): Promise<EvaluatedToolInputs> {
    const field = `${ctx.fieldPath}.value`;
    const path = step.agent;
    if (!path)
      return evaluateToolInputs(this.evaluator, step, ctx.scope, { tools: field, toolInputs: field });
    const workspace = ctx.run.job.workspace;
    const read = async () =>
      run.pinned_agents?.[path] ??
      (run.agent_drafts ? await this.registry.getResourceDraftValue(jobToken, workspace, path) : undefined) ??
      (await this.registry.getResourceValue(jobToken, workspace, path));
    const agent = await read().catch(() => undefined);
    const tools = (agent as { tools?: unknown } | undefined)?.tools;
    return evaluateToolInputs(
      this.evaluator,
      { ...step, tools: Array.isArray(tools) ? (tools as AiAgent['tools']) : [] },
      ctx.scope,
      { tools: `agent (${step.agent})`, toolInputs: field },
    );
  }

  /**
   * The memory id the run was started with, kept on the flow the run started (its root), whether
   * the run is a chat (that flow has `chat_input_enabled`), whether it previews agent drafts, the
   * agents it pinned, whether it is a nested agent tool, and whether it records or replays its model calls.
   */
  private async runContext(run: ModuleContext['run']): Promise<{
    memory_id?: string;
    chat?: true;
    agent_drafts?: true;
    pinned_agents?: Record<string, unknown>;
    agent_tool?: true;
    agent_depth?: number;
    recording?: RecordingRef;
    multitask_strategy?: MultitaskStrategy;
  }> {
    let top = run;
    while (top.parent) top = top.parent;
    const root = top.id === run.job.root_job ? top.job : await this.jobs.load(run.job.root_job);
    const drafts = {
      ...(root?.runtime.agentDrafts === true ? { agent_drafts: true as const } : {}),
      ...(root?.runtime.pinnedAgents ? { pinned_agents: root.runtime.pinnedAgents } : {}),
      ...(root?.runtime.agentTool === true ? { agent_tool: true as const } : {}),
      ...(root?.runtime.agentDepth !== undefined ? { agent_depth: root.runtime.agentDepth } : {}),
      ...(root?.runtime.recording ? { recording: root.runtime.recording } : {}),
      ...(root?.runtime.multitaskStrategy ? { multitask_strategy: root.runtime.multitaskStrategy } : {}),
    };
    const memoryId = root?.flow_status?.memory_id;
    if (typeof memoryId !== 'string') return drafts;
    const chat = (root?.raw_flow as { chat_input_enabled?: unknown } | null)?.chat_input_enabled === true;
    return { ...drafts, memory_id: memoryId, ...(chat ? { chat: true as const } : {}) };
  }

  private end(record: JobRecord, result: unknown): ModuleOutcome {
    const row = endedRecord(record, {
      success: false,
      result,
      startedAt: record.started_at ?? new Date(),
      durationMs: 0,
    });
    return {
      success: false,
      result,
      status: { job: record.id },
      statements: [this.jobs.insert(row, { upsert: true })],
    };
  }
}

function withActions(outcome: ModuleOutcome, row: JobRecord): ModuleOutcome {
  const actions = row.runtime.agentActions;
  if (!actions) return outcome;
  return {
    ...outcome,
    status: {
      ...outcome.status,
      agent_actions: actions as never,
      ...(row.runtime.agentActionsSuccess ? { agent_actions_success: row.runtime.agentActionsSuccess } : {}),
    },
  };
}
