import {
  createContractClient,
  defineRequest,
  SAFE_TO_REPEAT,
  type RequestTransport,
} from '../messaging/contract.js';
import {
  DeployDraftReplySchema,
  DeployDraftRequestSchema,
  DiscardDraftReplySchema,
  DiscardDraftRequestSchema,
  DraftSchema,
  GetDraftRequestSchema,
  ListDraftsReplySchema,
  ListDraftsRequestSchema,
  SaveDraftRequestSchema,
} from './draft.schema.js';

/** Per-user drafts over NATS: `createRegistryDraftsClient(mesh).get({...})`. */
export const registryDraftsContract = {
  save: defineRequest('registry.draft.save', SaveDraftRequestSchema, DraftSchema),
  list: defineRequest('registry.draft.list', ListDraftsRequestSchema, ListDraftsReplySchema, SAFE_TO_REPEAT),
  get: defineRequest('registry.draft.get', GetDraftRequestSchema, DraftSchema, SAFE_TO_REPEAT),
  deploy: defineRequest('registry.draft.deploy', DeployDraftRequestSchema, DeployDraftReplySchema, {
    timeoutMs: 15_000,
  }),
  discard: defineRequest('registry.draft.discard', DiscardDraftRequestSchema, DiscardDraftReplySchema),
} as const;

export type RegistryDraftsContract = typeof registryDraftsContract;

export function createRegistryDraftsClient(transport: RequestTransport) {
  return createContractClient(registryDraftsContract, transport);
}
export type RegistryDraftsClient = ReturnType<typeof createRegistryDraftsClient>;
