import { packageVersion, type ServiceDefinition } from '@flowmesh/bootstrap';
import { flowOrchestratorConfigSchema } from './flow-orchestrator.config.js';

/** How flow-orchestrator starts: `main.ts` hands this to `bootstrapService`, tests to `startTestService`. */
export const flowOrchestratorDefinition: ServiceDefinition<typeof flowOrchestratorConfigSchema> = {
  name: 'flow-orchestrator',
  version: packageVersion(import.meta.url),
  configSchema: flowOrchestratorConfigSchema,
  // Imported on demand, so the module's dependencies load after telemetry has started.
  migrations: async () => (await import('./migrations/index.js')).FLOW_ORCHESTRATOR_MIGRATIONS,
  rootModule: async (config, { logger }) =>
    (await import('./flow-orchestrator.module.js')).FlowOrchestratorModule.forRoot(config, logger),
  // Same image, FLOWMESH_ROLE=worker: takes jobs from the work stream, scaled on its own.
  workerModule: async (config, { logger }) =>
    (await import('./worker/orchestrator-worker.module.js')).OrchestratorWorkerModule.forRoot(config, logger),
};
