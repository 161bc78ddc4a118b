import { ExpressionItems } from '../engine/expressions/expression-items.js';
import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import { SCRIPT_RUNNER_REGISTRY } from '../ports/script-runner.port.js';
import { CancelListener } from '../scheduler/cancel.listener.js';
import { LeaseKeeper } from '../scheduler/lease.keeper.js';
import { JobRunner } from './job-runner.service.js';
import { ScriptJobExecutor } from './script-job.executor.js';
import type { EngineConfig } from '../engine/engine.config.js';
import { FlowCompletion } from '../engine/flow-completion.js';
import { FlowDriver } from '../engine/flow-driver.js';
import { FlowFinisher } from '../engine/flow-finisher.js';
import { FlowStarter } from '../engine/flow-starter.js';
import { FlowStateStore } from '../engine/flow-state.store.js';
import { LocalClaims } from '../engine/local-claims.js';
import { ApprovalGate } from '../engine/gates/approval.gate.js';
import { SleepGate } from '../engine/gates/sleep.gate.js';
import { ModuleResults } from '../engine/module-results.js';
import { AgentStepExecutor } from '../engine/modules/agent-step.executor.js';
import { BodyRunner } from '../engine/modules/body-runner.js';
import { BranchExecutor } from '../engine/modules/branch.executor.js';
import { DecisionExecutor } from '../engine/modules/decision.executor.js';
import { LeafExecutor } from '../engine/modules/leaf.executor.js';
import { LoopExecutor } from '../engine/modules/loop.executor.js';
import { SubflowExecutor } from '../engine/modules/subflow.executor.js';
import { ScopedTokens } from '../engine/scoped-token.js';
import { StepEventPublisher } from '../engine/step-events.publisher.js';
import { FlowEnvResolver } from '../engine/steps/flow-env.resolver.js';
import { LeafStepRunner } from '../engine/steps/leaf-step.runner.js';
import { NoScriptRunners } from '../engine/steps/no-runners.registry.js';
import { FlowMetrics } from '../telemetry/flow.metrics.js';
import { LoopGuard } from '../engine/modules/loop-guard.js';

const WORKER_PROVIDERS: Provider[] = [
  LocalClaims,
  FlowMetrics,
  ExpressionItems,
  FlowDriver,
  FlowStateStore,
  FlowStarter,
  FlowCompletion,
  FlowFinisher,
  ModuleResults,
  ApprovalGate,
  SleepGate,
  LeafExecutor,
  LoopExecutor,
  LoopGuard,
  BranchExecutor,
  SubflowExecutor,
  AgentStepExecutor,
  DecisionExecutor,
  BodyRunner,
  ScopedTokens,
  StepEventPublisher,
  FlowEnvResolver,
  LeafStepRunner,
  JobRunner,
  ScriptJobExecutor,
  LeaseKeeper,
  CancelListener,
];

/**
 * The engine of a worker: the driver that advances flows (the scheduler), the executors of each
 * module type, the script runners, leases and cancel signals. Needs `EngineModule`.
 */
@Module({})
export class EngineWorkerModule {
  static forRoot(engineConfig: EngineConfig, runners?: DynamicModule): DynamicModule {
    return {
      module: EngineWorkerModule,
      imports: runners ? [runners] : [],
      providers: [
        ...WORKER_PROVIDERS,
        ...(runners
          ? []
          : [{ provide: SCRIPT_RUNNER_REGISTRY, useValue: new NoScriptRunners(engineConfig.workerTags) }]),
      ],
      exports: [JobRunner, FlowDriver],
    };
  }
}
