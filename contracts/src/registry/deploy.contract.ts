import { createContractClient, defineRequest, type RequestTransport } from '../messaging/contract.js';
import { DeployPlanSchema, DeployRequestSchema, DeployResultSchema } from './deploy.schema.js';

/**
 * Deploy to another workspace over NATS. `plan` is the dry run; `apply` writes everything or
 * nothing, and refuses a target that exists and differs unless `overwrite` is set.
 */
export const registryDeployContract = {
  plan: defineRequest('registry.deploy.plan', DeployRequestSchema, DeployPlanSchema, { timeoutMs: 15_000 }),
  apply: defineRequest('registry.deploy.apply', DeployRequestSchema, DeployResultSchema, {
    timeoutMs: 30_000,
  }),
} as const;

export type RegistryDeployContract = typeof registryDeployContract;

export function createRegistryDeployClient(transport: RequestTransport) {
  return createContractClient(registryDeployContract, transport);
}
export type RegistryDeployClient = ReturnType<typeof createRegistryDeployClient>;
