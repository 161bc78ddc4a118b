import { createContractClient, defineRequest, type RequestTransport } from '../messaging/contract.js';
import {
  CreateHttpTriggerRequestSchema,
  HttpRouteExistsRequestSchema,
  HttpTriggerDeletedReplySchema,
  HttpTriggerExistsReplySchema,
  HttpTriggerPathRequestSchema,
  HttpTriggerSchema,
  ListHttpTriggersReplySchema,
  ListHttpTriggersRequestSchema,
  SetHttpTriggerEnabledRequestSchema,
  UpdateHttpTriggerRequestSchema,
} from './http-trigger.schema.js';

/**
 * HTTP routes (Windmill's HTTP triggers), answered by flow-orchestrator. Every request carries
 * the caller's token (`actor`) and workspace. A route the caller may not read answers NOT_FOUND,
 * exactly as one that does not exist; saving a route needs write access to its path and read
 * access to the runnable it calls, and makes the caller its owner (`permissioned_as`).
 */
export const orchestratorHttpTriggersContract = {
  create: defineRequest(
    'orchestrator.http_trigger.create',
    CreateHttpTriggerRequestSchema,
    HttpTriggerSchema,
  ),
  get: defineRequest('orchestrator.http_trigger.get', HttpTriggerPathRequestSchema, HttpTriggerSchema),
  list: defineRequest(
    'orchestrator.http_trigger.list',
    ListHttpTriggersRequestSchema,
    ListHttpTriggersReplySchema,
  ),
  update: defineRequest(
    'orchestrator.http_trigger.update',
    UpdateHttpTriggerRequestSchema,
    HttpTriggerSchema,
  ),
  delete: defineRequest(
    'orchestrator.http_trigger.delete',
    HttpTriggerPathRequestSchema,
    HttpTriggerDeletedReplySchema,
  ),
  exists: defineRequest(
    'orchestrator.http_trigger.exists',
    HttpTriggerPathRequestSchema,
    HttpTriggerExistsReplySchema,
  ),
  setEnabled: defineRequest(
    'orchestrator.http_trigger.set_enabled',
    SetHttpTriggerEnabledRequestSchema,
    HttpTriggerSchema,
  ),
  routeExists: defineRequest(
    'orchestrator.http_trigger.route_exists',
    HttpRouteExistsRequestSchema,
    HttpTriggerExistsReplySchema,
  ),
} as const;

export type OrchestratorHttpTriggersContract = typeof orchestratorHttpTriggersContract;

/** `httpTriggers.create({ actor, workspace, trigger })`, ... over any request transport (a `MeshClient`). */
export function createOrchestratorHttpTriggersClient(transport: RequestTransport) {
  return createContractClient(orchestratorHttpTriggersContract, transport);
}
export type OrchestratorHttpTriggersClient = ReturnType<typeof createOrchestratorHttpTriggersClient>;
