import {
  createContractClient,
  defineRequest,
  SAFE_TO_REPEAT,
  type RequestTransport,
} from '../messaging/contract.js';
import {
  AppendConversationMessageReplySchema,
  AppendConversationMessageRequestSchema,
  ConversationSchema,
  DeleteConversationReplySchema,
  DeleteConversationRequestSchema,
  ListConversationMessagesReplySchema,
  ListConversationMessagesRequestSchema,
  ListConversationsReplySchema,
  ListConversationsRequestSchema,
  StartConversationRequestSchema,
} from './conversation.schema.js';
import {
  DeleteMemoryByIdRequestSchema,
  DeleteMemoryReplySchema,
  DeleteMemoryRequestSchema,
  GetMemoryRequestSchema,
  ListMemoriesReplySchema,
  ListMemoriesRequestSchema,
  LoadMemoryReplySchema,
  LoadMemoryRequestSchema,
  ResolveMemoryKeyReplySchema,
  ResolveMemoryKeyRequestSchema,
  SaveMemoryReplySchema,
  SaveMemoryRequestSchema,
  StoredMemorySchema,
} from './memory.schema.js';
import {
  AcquireMemoryLockReplySchema,
  AcquireMemoryLockRequestSchema,
  ReleaseMemoryLocksReplySchema,
  ReleaseMemoryLocksRequestSchema,
  RenewMemoryLocksReplySchema,
  RenewMemoryLocksRequestSchema,
} from './memory-lock.schema.js';

/** A save may write to object storage, and fall back to the database after it failed. */
const SAVE_TIMEOUT_MS = 15_000;

/**
 * Agent memory and chat conversations, answered by memory-service. The agent runtime calls it
 * with the run's job token as `actor`; every call is checked against the flow's permissions
 * (reading a memory needs read access to its flow, deleting one write access).
 */
export const memoryContract = {
  /** The memory of (memory key, step): the last `window` messages, or all of it. */
  load: defineRequest('memory.memory.load', LoadMemoryRequestSchema, LoadMemoryReplySchema, SAFE_TO_REPEAT),
  /** Replaces the stored memory atomically; the reply says what happened (saved, trimmed, skipped). */
  save: defineRequest('memory.memory.save', SaveMemoryRequestSchema, SaveMemoryReplySchema, {
    timeoutMs: SAVE_TIMEOUT_MS,
  }),
  /** Deletes the memory of a key (every step's, or one step's). */
  delete: defineRequest('memory.memory.delete', DeleteMemoryRequestSchema, DeleteMemoryReplySchema),
  /** Deletes a memory by resolved id (every step's), as the admin API does. */
  deleteById: defineRequest(
    'memory.memory.delete_by_id',
    DeleteMemoryByIdRequestSchema,
    DeleteMemoryReplySchema,
  ),
  /** Memories of a workspace whose flows the actor may read, newest first. */
  list: defineRequest(
    'memory.memory.list',
    ListMemoriesRequestSchema,
    ListMemoriesReplySchema,
    SAFE_TO_REPEAT,
  ),
  /** One stored memory by resolved id and step. */
  get: defineRequest('memory.memory.get', GetMemoryRequestSchema, StoredMemorySchema, SAFE_TO_REPEAT),
  /** The memory id a key names in a flow (no permission needed: it is a pure function). */
  resolveKey: defineRequest(
    'memory.key.resolve',
    ResolveMemoryKeyRequestSchema,
    ResolveMemoryKeyReplySchema,
    SAFE_TO_REPEAT,
  ),

  /**
   * A ticket for one memory (memory key, step) for one agent step: two runs on one memory take
   * turns (or the later is rejected, or interrupts the earlier), so neither loses the other's turn.
   */
  acquireLock: defineRequest(
    'memory.lock.acquire',
    AcquireMemoryLockRequestSchema,
    AcquireMemoryLockReplySchema,
    SAFE_TO_REPEAT,
  ),
  /** Keeps the tickets of running steps (agent-runtime renews them with its own leases). */
  renewLocks: defineRequest(
    'memory.lock.renew',
    RenewMemoryLocksRequestSchema,
    RenewMemoryLocksReplySchema,
    SAFE_TO_REPEAT,
  ),
  /** Drops the tickets of steps that saved their memory or ended. */
  releaseLocks: defineRequest(
    'memory.lock.release',
    ReleaseMemoryLocksRequestSchema,
    ReleaseMemoryLocksReplySchema,
    SAFE_TO_REPEAT,
  ),

  startConversation: defineRequest(
    'memory.conversation.start',
    StartConversationRequestSchema,
    ConversationSchema,
  ),
  appendConversationMessage: defineRequest(
    'memory.conversation_message.append',
    AppendConversationMessageRequestSchema,
    AppendConversationMessageReplySchema,
  ),
  listConversations: defineRequest(
    'memory.conversation.list',
    ListConversationsRequestSchema,
    ListConversationsReplySchema,
    SAFE_TO_REPEAT,
  ),
  listConversationMessages: defineRequest(
    'memory.conversation_message.list',
    ListConversationMessagesRequestSchema,
    ListConversationMessagesReplySchema,
    SAFE_TO_REPEAT,
  ),
  /** Deletes a conversation, its transcript and its memories. */
  deleteConversation: defineRequest(
    'memory.conversation.delete',
    DeleteConversationRequestSchema,
    DeleteConversationReplySchema,
    { timeoutMs: SAVE_TIMEOUT_MS },
  ),
} as const;

export type MemoryContract = typeof memoryContract;

/** `memory.load({...})`, `memory.save({...})`, ... over any request transport (a `MeshClient`). */
export function createMemoryClient(transport: RequestTransport) {
  return createContractClient(memoryContract, transport);
}
export type MemoryClient = ReturnType<typeof createMemoryClient>;
