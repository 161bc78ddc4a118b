import { createContractClient, defineRequest, type RequestTransport } from '../messaging/contract.js';
import {
  CreateEventTriggerRequestSchema,
  EventTriggerDeletedReplySchema,
  EventTriggerExistsReplySchema,
  EventTriggerPathRequestSchema,
  EventTriggerSchema,
  ListEventTriggersReplySchema,
  ListEventTriggersRequestSchema,
  SetEventTriggerModeRequestSchema,
  UpdateEventTriggerRequestSchema,
} from './event-trigger.schema.js';

/**
 * Event triggers (NATS, AMQP, MQTT, WebSocket, PostgreSQL, Kafka), answered by flow-orchestrator: one set of subjects for every
 * kind, the kind a field of each request (over HTTP each kind has its own Windmill API,
 * `<kind>_triggers/...`). Every request carries the caller's token (`actor`) and workspace. A
 * trigger the caller may not read answers NOT_FOUND, exactly as one that does not exist; saving
 * needs write access to its path and read access to the runnable and the connection's resource,
 * and makes the caller its owner (`permissioned_as`).
 */
export const orchestratorEventTriggersContract = {
  create: defineRequest(
    'orchestrator.event_trigger.create',
    CreateEventTriggerRequestSchema,
    EventTriggerSchema,
  ),
  get: defineRequest('orchestrator.event_trigger.get', EventTriggerPathRequestSchema, EventTriggerSchema),
  list: defineRequest(
    'orchestrator.event_trigger.list',
    ListEventTriggersRequestSchema,
    ListEventTriggersReplySchema,
  ),
  update: defineRequest(
    'orchestrator.event_trigger.update',
    UpdateEventTriggerRequestSchema,
    EventTriggerSchema,
  ),
  delete: defineRequest(
    'orchestrator.event_trigger.delete',
    EventTriggerPathRequestSchema,
    EventTriggerDeletedReplySchema,
  ),
  exists: defineRequest(
    'orchestrator.event_trigger.exists',
    EventTriggerPathRequestSchema,
    EventTriggerExistsReplySchema,
  ),
  setMode: defineRequest(
    'orchestrator.event_trigger.set_mode',
    SetEventTriggerModeRequestSchema,
    EventTriggerSchema,
  ),
} as const;

export type OrchestratorEventTriggersContract = typeof orchestratorEventTriggersContract;

/** `eventTriggers.create({ actor, workspace, kind, trigger })`, ... over any request transport. */
export function createOrchestratorEventTriggersClient(transport: RequestTransport) {
  return createContractClient(orchestratorEventTriggersContract, transport);
}
export type OrchestratorEventTriggersClient = ReturnType<typeof createOrchestratorEventTriggersClient>;
