import { ExpressionItems } from './expressions/expression-items.js';
import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import { SCRIPT_RUNNER_REGISTRY } from '../ports/script-runner.port.js';
import { CancelListener } from '../scheduler/cancel.listener.js';
import { LeaseKeeper } from '../scheduler/lease.keeper.js';
import { JobRunner } from '../worker/job-runner.service.js';
import { ScriptJobExecutor } from '../worker/script-job.executor.js';
import type { EngineConfig } from './engine.config.js';
import { FlowCompletion } from './flow-completion.js';
import { FlowDriver } from './flow-driver.js';
import { FlowFinisher } from './flow-finisher.js';
import { FlowStarter } from './flow-starter.js';
import { FlowStateStore } from './flow-state.store.js';
import { LocalClaims } from './local-claims.js';
import { ApprovalGate } from './gates/approval.gate.js';
import { SleepGate } from './gates/sleep.gate.js';
import { ModuleResults } from './module-results.js';
import { AgentStepExecutor } from './modules/agent-step.executor.js';
import { BodyRunner } from './modules/body-runner.js';
import { BranchExecutor } from './modules/branch.executor.js';
import { DecisionExecutor } from './modules/decision.executor.js';
import { LeafExecutor } from './modules/leaf.executor.js';
import { LoopExecutor } from './modules/loop.executor.js';
import { SubflowExecutor } from './modules/subflow.executor.js';
import { ScopedTokens } from './scoped-token.js';
import { StepEventPublisher } from './step-events.publisher.js';
import { FlowEnvResolver } from './steps/flow-env.resolver.js';
import { LeafStepRunner } from './steps/leaf-step.runner.js';
import { NoScriptRunners } from './steps/no-runners.registry.js';
import { FlowMetrics } from '../telemetry/flow.metrics.js';

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
