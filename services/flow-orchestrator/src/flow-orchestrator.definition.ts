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
  // The gRPC API (`FLOWMESH_GRPC_PORT`), served by the service role beside HTTP and NATS.
  extraTransport: async (config) => {
    if (config.role !== 'service' || config.grpc.port === undefined) return undefined;
    const { FlowmeshGrpcServer } = await import('./grpc/grpc-server.js');
    return new FlowmeshGrpcServer({ host: config.http.host, port: config.grpc.port, graceMs: 2_000 });
  },
  // HTTP routes (`/api/r`) read their bodies as bytes, before the JSON parser: signatures are over them.
  configureHttp: async (app, config) => {
    if (config.role !== 'service') return;
    const { rawBodyReader } = await import('./triggers/http-routes/raw-body.middleware.js');
    app.use('/api/r', rawBodyReader(config.http.bodyLimitBytes));
    // Webhooks (runs by path) too: `?raw=true` hands their preprocessor the exact bytes.
    for (const run of ['run', 'run_wait_result'])
      for (const kind of ['f', 'p'])
        app.use(`/api/w/:workspace/jobs/${run}/${kind}`, rawBodyReader(config.http.bodyLimitBytes));
  },
  workerModule: async (config, { logger }) =>
    (await import('./worker/orchestrator-worker.module.js')).OrchestratorWorkerModule.forRoot(config, logger),
};
