import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import { JobTokenSealer } from '@flowmesh/keyring';
import { EXPRESSION_SANDBOX } from '../ports/expression-sandbox.port.js';
import { JobTokens } from '../registry/job-tokens.js';
import { RegistryGateway } from '../registry/registry.gateway.js';
import {
  QuickJsExpressionSandbox,
  type ExpressionSandboxLimits,
} from '../sandbox/quickjs-expression.sandbox.js';
import { STORE_PROVIDERS } from '../store/store.providers.js';
import { CancelSignals } from './cancel-signals.js';
import { ConcurrencyLimiter } from './concurrency.limiter.js';
import { Debouncer } from './debouncer.js';
import { ENGINE_CONFIG, type EngineConfig } from './engine.config.js';
import { EngineOutbox } from './engine-outbox.js';
import { ExpressionEvaluator } from './expressions/expression.evaluator.js';
import { WorkspaceLimits } from './workspace-limits.js';

const CORE_PROVIDERS: Provider[] = [
  ...STORE_PROVIDERS,
  JobTokens,
  RegistryGateway,
  EngineOutbox,
  ExpressionEvaluator,
  ConcurrencyLimiter,
  CancelSignals,
  Debouncer,
  WorkspaceLimits,
];

/**
 * The engine as every orchestrator process has it: the stores of the job tables, starting flows,
 * the outbox relay and the timer of parked jobs. The use cases on jobs build on it (`JobsModule`);
 * the worker role adds the driver and the runners (`EngineWorkerModule`).
 */
@Module({})
export class EngineModule {
  static forRoot(engineConfig: EngineConfig, sandbox: Partial<ExpressionSandboxLimits>): DynamicModule {
    return {
      module: EngineModule,
      global: true,
      providers: [
        { provide: ENGINE_CONFIG, useValue: engineConfig },
        { provide: JobTokenSealer, useValue: new JobTokenSealer(engineConfig.jobTokenKeys) },
        { provide: EXPRESSION_SANDBOX, useFactory: () => new QuickJsExpressionSandbox(sandbox) },
        ...CORE_PROVIDERS,
      ],
      exports: [ENGINE_CONFIG, EXPRESSION_SANDBOX, JobTokenSealer, ...CORE_PROVIDERS],
    };
  }
}
