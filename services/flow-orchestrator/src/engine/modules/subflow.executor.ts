import { randomUUID } from 'node:crypto';
import type { FlowStatusModule, FlowValue, PathFlow } from '@flowmesh/contracts';
import { parseOpenFlow } from '@flowmesh/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { JobTokens } from '../../registry/job-tokens.js';
import { RegistryGateway } from '../../registry/registry.gateway.js';
import { childFlowRecord, DEFAULT_FLOW_TAG, inheritedRuntime } from '../child-flows.js';
import { ENGINE_CONFIG, type EngineConfig } from '../engine.config.js';
import { ExpressionEvaluator } from '../expressions/expression.evaluator.js';
import { flowTooDeep } from '../flow-depth.js';
import { evaluateInputTransforms } from '../input-transforms.js';
import {
  done,
  PARKED,
  type ChildDriver,
  type ModuleContext,
  type ModuleProgress,
} from '../module-outcome.js';
import { errorObject } from '../steps/leaf-step.runner.js';
import { BodyRunner } from './body-runner.js';
import { countModules, tooManyModules, WorkspaceLimitError, WorkspaceLimits } from '../workspace-limits.js';

/**
 * A `flow` step: the saved flow at `path` (read from the registry as the run) runs as a child
 * flow job of kind `flow`, with its own failure module and flow_env; an early stop inside it
 * ends only it.
 */
@Injectable()
export class SubflowExecutor {
  constructor(
    private readonly evaluator: ExpressionEvaluator,
    private readonly registry: RegistryGateway,
    private readonly tokens: JobTokens,
    private readonly bodies: BodyRunner,
    private readonly limits: WorkspaceLimits,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
  ) {}

  async run(ctx: ModuleContext, driver: ChildDriver): Promise<ModuleProgress> {
    const value = ctx.module.value as PathFlow;
    if (ctx.status.type === 'InProgress' && ctx.status.job) {
      const row = (await this.bodies.childRows([ctx.status.job])).get(ctx.status.job);
      if (row) {
        const outcome = await this.bodies.resume(ctx, driver, row);
        if (outcome.kind === 'parked') return PARKED;
        return done({
          success: outcome.success,
          result: outcome.result,
          status: { job: row.id },
          statements: [],
        });
      }
    }
    const { run, module } = ctx;
    const chain = [...(run.runtime.flowChain ?? []), value.path];
    if (chain.length > this.config.maxFlowDepth)
      return done({
        success: false,
        result: { error: flowTooDeep(chain, this.config.maxFlowDepth) },
        status: {},
        statements: [],
      });
    let flowValue: FlowValue;
    let args: Record<string, unknown>;
    const scoped = await this.bodies.bodyToken(ctx);
    try {
      const flow = await this.registry.getFlow(
        await this.tokens.tokenOf(scoped.tokenJob),
        run.job.workspace,
        value.path,
      );
      const parsed = parseOpenFlow(flow.value);
      if (!parsed.ok)
        throw new Error(
          `flow ${value.path} is not a valid flow: ${parsed.errors[0]?.path}: ${parsed.errors[0]?.message}`,
        );
      flowValue = parsed.value;
      const modules = countModules(flowValue);
      const { max_flow_modules: limit } = await this.limits.of(run.job.workspace);
      if (modules > limit) throw new WorkspaceLimitError(tooManyModules(modules, limit));
      args = await evaluateInputTransforms(
        this.evaluator,
        value.input_transforms,
        ctx.scope,
        `${ctx.fieldPath}.value.input_transforms`,
      );
    } catch (error) {
      return done({ success: false, result: { error: errorObject(error) }, status: {}, statements: [] });
    }
    const runtime = inheritedRuntime(run);
    runtime.tokenJob = scoped.tokenJob;
    runtime.flowChain = chain;
    delete runtime.sameWorker;
    if (flowValue.same_worker) runtime.sameWorker = true;
    const childId = randomUUID();
    if (flowValue.flow_env && Object.keys(flowValue.flow_env).length > 0) runtime.envJob = childId;
    const child = childFlowRecord(run, {
      id: childId,
      kind: 'flow',
      path: value.path,
      stepId: module.id,
      value: flowValue,
      args,
      runtime,
      tag: run.runtime.customTag ? run.job.tag : DEFAULT_FLOW_TAG,
      priority: module.priority ?? run.job.priority,
    });
    const status: FlowStatusModule = { type: 'InProgress', id: module.id, job: childId };
    const outcome = await this.bodies.startAndDrive(ctx, driver, child, status, scoped.statements);
    if (outcome.kind === 'parked') return PARKED;
    return done({
      success: outcome.success,
      result: outcome.result,
      status: { job: childId },
      statements: [],
    });
  }
}
