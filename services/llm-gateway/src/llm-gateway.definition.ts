import { packageVersion, type ServiceDefinition } from '@flowmesh/bootstrap';
import { llmGatewayConfigSchema } from './llm-gateway.config.js';

/** How llm-gateway starts: `main.ts` hands this to `bootstrapService`, tests to `startTestService`. */
export const llmGatewayDefinition: ServiceDefinition<typeof llmGatewayConfigSchema> = {
  name: 'llm-gateway',
  version: packageVersion(import.meta.url),
  configSchema: llmGatewayConfigSchema,
  // Imported on demand, so the module's dependencies load after telemetry has started.
  migrations: async () => (await import('./migrations/index.js')).LLM_GATEWAY_MIGRATIONS,
  rootModule: async (config, { logger }) =>
    (await import('./llm-gateway.module.js')).LlmGatewayModule.forRoot(config, logger),
  // Chat bodies carry images and PDFs inline (base64).
  httpBodyLimitBytes: (config) => config.edge.maxBodyBytes,
};
