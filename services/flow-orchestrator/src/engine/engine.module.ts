import { randomUUID } from 'node:crypto';
import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import type { FlowOrchestratorConfig } from '../flow-orchestrator.config.js';
import { EXPRESSION_SANDBOX } from '../ports/expression-sandbox.port.js';
import { JobTokens } from '../registry/job-tokens.js';
import { RegistryGateway } from '../registry/registry.gateway.js';
import { QuickJsExpressionSandbox } from '../sandbox/quickjs-expression.sandbox.js';
import { TimerPoller } from '../scheduler/timer.poller.js';
import { STORE_PROVIDERS } from '../store/store.providers.js';
import { CancelSignals } from './cancel-signals.js';
import { ConcurrencyLimiter } from './concurrency.limiter.js';
import { Debouncer } from './debouncer.js';
import { ENGINE_CONFIG, type EngineConfig } from './engine.config.js';
import { EngineOutbox } from './engine-outbox.js';
import { ExpressionEvaluator } from './expressions/expression.evaluator.js';

export function engineConfigOf(config: FlowOrchestratorConfig): EngineConfig {
  const { engine } = config;
  return {
    instanceId: `${config.processName}-${randomUUID()}`,
    workerTags: config.role === 'worker' ? config.workerTags : [],
    workerConcurrency: engine.workerConcurrency,
    ackWaitMs: engine.ackWaitMs,
    // Below two thirds of the ack wait: a dead driver's lease is gone before its message comes back.
    leaseTtlMs: Math.max(300, Math.floor(engine.ackWaitMs / 2)),
    defaultTimeoutMs: engine.defaultTimeoutMs,
    defaultMemoryMb: engine.defaultMemoryMb,
    jobTokenTtlSeconds: engine.jobTokenTtlSeconds,
    liveAfterMs: engine.liveAfterMs,
    timerPollMs: engine.timerPollMs,
    maxInlineParallelism: engine.maxInlineParallelism,
    maxFlowDepth: engine.maxFlowDepth,
    jobTokenKeys: engine.jobTokenKeys,
  };
}

const CORE_PROVIDERS: Provider[] = [
  ...STORE_PROVIDERS,
  JobTokens,
  RegistryGateway,
  EngineOutbox,
  ExpressionEvaluator,
  ConcurrencyLimiter,
  CancelSignals,
  Debouncer,
  TimerPoller,
];

/**
 * The engine as every orchestrator process has it: the stores of the job tables, starting flows,
 * the outbox relay and the timer of parked jobs. The use cases on jobs build on it (`JobsModule`);
 * the worker role adds the driver and the runners (`EngineWorkerModule`).
 */
@Module({})
export class EngineModule {
  static forRoot(
    config: FlowOrchestratorConfig,
    engineConfig: EngineConfig = engineConfigOf(config),
  ): DynamicModule {
    return {
      module: EngineModule,
      global: true,
      providers: [
        { provide: ENGINE_CONFIG, useValue: engineConfig },
        {
          provide: EXPRESSION_SANDBOX,
          useFactory: () => new QuickJsExpressionSandbox(config.runners.sandbox),
        },
        ...CORE_PROVIDERS,
      ],
      exports: [ENGINE_CONFIG, EXPRESSION_SANDBOX, ...CORE_PROVIDERS],
    };
  }
}
