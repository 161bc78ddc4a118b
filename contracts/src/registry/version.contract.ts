import {
  createContractClient,
  defineRequest,
  SAFE_TO_REPEAT,
  type RequestTransport,
} from '../messaging/contract.js';
import {
  ClearResourceVersionsReplySchema,
  ClearResourceVersionsRequestSchema,
  DiffResourceVersionsRequestSchema,
  GetResourceVersionRequestSchema,
  ListResourceVersionsReplySchema,
  ListResourceVersionsRequestSchema,
  ResourceVersionDiffSchema,
  ResourceVersionSchema,
  RestoreResourceVersionReplySchema,
  RestoreResourceVersionRequestSchema,
} from './version.schema.js';

/** Resource history over NATS: `createRegistryHistoryClient(mesh).list({...})`. */
export const registryHistoryContract = {
  list: defineRequest(
    'registry.resource.history.list',
    ListResourceVersionsRequestSchema,
    ListResourceVersionsReplySchema,
    SAFE_TO_REPEAT,
  ),
  get: defineRequest(
    'registry.resource.history.get',
    GetResourceVersionRequestSchema,
    ResourceVersionSchema,
    SAFE_TO_REPEAT,
  ),
  diff: defineRequest(
    'registry.resource.history.diff',
    DiffResourceVersionsRequestSchema,
    ResourceVersionDiffSchema,
    SAFE_TO_REPEAT,
  ),
  restore: defineRequest(
    'registry.resource.history.restore',
    RestoreResourceVersionRequestSchema,
    RestoreResourceVersionReplySchema,
  ),
  clear: defineRequest(
    'registry.resource.history.clear',
    ClearResourceVersionsRequestSchema,
    ClearResourceVersionsReplySchema,
  ),
} as const;

export type RegistryHistoryContract = typeof registryHistoryContract;

export function createRegistryHistoryClient(transport: RequestTransport) {
  return createContractClient(registryHistoryContract, transport);
}
export type RegistryHistoryClient = ReturnType<typeof createRegistryHistoryClient>;
