import { z } from 'zod';
import { ChatHistorySchema } from '../ai/chat-message.schema.js';
import { ItemPathSchema, WorkspaceIdSchema } from '../registry/access-path.js';
import { ActorSchema } from '../registry/identity.schema.js';

/**
 * Agent memory, answered by memory-service: the history an `aiagent` step replays, stored per
 * (memory id, step id) in a workspace.
 */

/** What the database store holds for one memory, serialized as JSON (UTF-8 bytes). */
export const MAX_MEMORY_SIZE_BYTES = 100 * 1024;

/**
 * Windmill's namespace of memory keys (`flow_conversations.rs`, `memory_key`). A key is trimmed; one
 * that is a uuid (hyphenated, 32 hex digits, braced or `urn:uuid:`) names its memory as is, in its
 * hyphenated lower-case form; any other string becomes the v5 uuid of the bytes
 * `workspace \0 flowPath \0 key \0` in this namespace, so the same key in two flows (or two
 * workspaces) names two memories, and a key names the same memory in Windmill and in flowmesh. A
 * preview run's `flowPath` is the path its request gives, else empty.
 */
export const MEMORY_KEY_NAMESPACE = '6f1c2d4e-8a3b-5c7d-9e0f-1a2b3c4d5e6f';

/** The flow a memory belongs to: a saved flow's path, or empty for a preview run without one. */
export const MemoryFlowPathSchema = z.union([ItemPathSchema, z.literal('')]);

/** Any string names a memory: a uuid is kept, anything else is hashed (see `MEMORY_KEY_NAMESPACE`). */
export const MemoryKeySchema = z.string().min(1, 'must not be empty').max(1024);

/** A resolved memory id. */
export const MemoryIdSchema = z.uuid({ error: 'must be a uuid' });

/** The flow step the memory belongs to; it becomes part of an object key, hence the narrow shape. */
export const StepIdSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/,
    "must be 1-128 letters, digits, '_', '-' or '.', starting with a letter, digit or '_'",
  );

export const MEMORY_STORES = ['database', 's3'] as const;
export const MemoryStoreSchema = z.enum(MEMORY_STORES);
export type MemoryStoreKind = z.infer<typeof MemoryStoreSchema>;

/** The step's managed memory kind: only `compaction` can shrink a memory by summarizing it. */
export const MemoryModeSchema = z.enum(['window', 'compaction']);
export type MemoryMode = z.infer<typeof MemoryModeSchema>;

/**
 * Every memory request names its caller (the run's job token) and the flow the run started from
 * (empty for a preview run that names no path).
 */
const inFlow = { actor: ActorSchema, workspace: WorkspaceIdSchema, flowPath: MemoryFlowPathSchema };

export const LoadMemoryRequestSchema = z
  .object({
    ...inFlow,
    memoryKey: MemoryKeySchema,
    stepId: StepIdSchema,
    /** Replay only the last N messages (never splitting a tool call from its results); absent: all. */
    window: z.number().int().positive().max(100_000).optional(),
  })
  .strict();
export type LoadMemoryRequest = z.infer<typeof LoadMemoryRequestSchema>;

export const LoadMemoryReplySchema = z.object({
  memoryId: MemoryIdSchema,
  stepId: z.string(),
  /** Version of the stored memory; null when there is none yet. */
  version: z.number().int().positive().nullable(),
  messages: ChatHistorySchema,
  /** Messages in the stored memory (the window may return fewer). */
  totalMessages: z.number().int().nonnegative(),
  /** Bytes a saved memory may take in the configured store; null when nothing bounds it. */
  capacityBytes: z.number().int().positive().nullable(),
  store: MemoryStoreSchema.nullable(),
});
export type LoadMemoryReply = z.infer<typeof LoadMemoryReplySchema>;

export const SaveMemoryRequestSchema = z
  .object({
    ...inFlow,
    memoryKey: MemoryKeySchema,
    stepId: StepIdSchema,
    mode: MemoryModeSchema,
    /**
     * The caller already compacted this memory once because a previous save said
     * `compaction_required`: over the limit now, the service keeps a suffix instead of asking again.
     */
    compacted: z.boolean().default(false),
    messages: ChatHistorySchema,
    /**
     * The agent step's job holding this memory's ticket (`memory.lock.acquire`): the save is
     * refused (`CONFLICT`) when the ticket is no longer its own (its lease ran out and another
     * run took the memory), so a stalled step never writes over a newer turn.
     */
    heldBy: z.uuid().optional(),
  })
  .strict();
export type SaveMemoryRequest = z.input<typeof SaveMemoryRequestSchema>;

const sizes = {
  memoryId: MemoryIdSchema,
  /** Serialized size of the memory as sent. */
  sizeBytes: z.number().int().nonnegative(),
  /** The limit it was checked against; null when the store reports none. */
  limitBytes: z.number().int().positive().nullable(),
  /** A sentence for the flow log, or null when there is nothing to say. */
  notice: z.string().nullable(),
};

export const DroppedMessagesSchema = z.object({
  messages: z.number().int().positive(),
  exchanges: z.number().int().positive(),
  bytes: z.number().int().positive(),
});

export const SaveMemoryReplySchema = z.discriminatedUnion('status', [
  z.object({
    status: z.literal('saved'),
    ...sizes,
    version: z.number().int().positive(),
    /** The version this save replaced; null when there was none. */
    replacedVersion: z.number().int().positive().nullable(),
    store: MemoryStoreSchema,
    /** Object storage failed and the memory went to the database instead. */
    fellBack: z.boolean(),
    /** Older exchanges left out to fit the limit; null when everything was saved. */
    dropped: DroppedMessagesSchema.nullable(),
    /** Bytes actually written. */
    savedBytes: z.number().int().nonnegative(),
  }),
  /** Over the limit: nothing written; compact once and save again with `compacted: true`. */
  z.object({ status: z.literal('compaction_required'), ...sizes, limitBytes: z.number().int().positive() }),
  /** Not even the last exchange fits: nothing written, the previous memory stays. */
  z.object({
    status: z.literal('skipped'),
    ...sizes,
    limitBytes: z.number().int().positive(),
    currentVersion: z.number().int().positive().nullable(),
  }),
  /** The save could not be done (an oversized compaction write in the database fallback). */
  z.object({
    status: z.literal('failed'),
    ...sizes,
    currentVersion: z.number().int().positive().nullable(),
  }),
]);
export type SaveMemoryReply = z.infer<typeof SaveMemoryReplySchema>;

export const DeleteMemoryRequestSchema = z
  .object({
    ...inFlow,
    memoryKey: MemoryKeySchema,
    /** Only this step's memory; absent: every step's. */
    stepId: StepIdSchema.optional(),
  })
  .strict();
export const DeleteMemoryReplySchema = z.object({
  memoryId: MemoryIdSchema,
  deleted: z.number().int().nonnegative(),
});

/** By resolved id, as the admin API names memories; the flow comes from the stored row. */
export const DeleteMemoryByIdRequestSchema = z
  .object({ actor: ActorSchema, workspace: WorkspaceIdSchema, memoryId: MemoryIdSchema })
  .strict();

export const MemorySummarySchema = z.object({
  memoryId: MemoryIdSchema,
  stepId: z.string(),
  flowPath: z.string(),
  version: z.number().int().positive(),
  messageCount: z.number().int().nonnegative(),
  sizeBytes: z.number().int().nonnegative(),
  store: MemoryStoreSchema,
  updatedAt: z.string(),
});
export type MemorySummary = z.infer<typeof MemorySummarySchema>;

export const ListMemoriesRequestSchema = z
  .object({
    actor: ActorSchema,
    workspace: WorkspaceIdSchema,
    /** Only memories of this flow. */
    flowPath: ItemPathSchema.optional(),
    page: z.number().int().positive().default(1),
    perPage: z.number().int().positive().max(1000).default(100),
  })
  .strict();
export type ListMemoriesRequest = z.input<typeof ListMemoriesRequestSchema>;
export const ListMemoriesReplySchema = z.object({
  memories: z.array(MemorySummarySchema),
  page: z.number().int(),
  perPage: z.number().int(),
});

export const GetMemoryRequestSchema = z
  .object({
    actor: ActorSchema,
    workspace: WorkspaceIdSchema,
    memoryId: MemoryIdSchema,
    stepId: StepIdSchema,
  })
  .strict();
export const StoredMemorySchema = MemorySummarySchema.extend({ messages: ChatHistorySchema });
export type StoredMemory = z.infer<typeof StoredMemorySchema>;

export const ResolveMemoryKeyRequestSchema = z
  .object({ workspace: WorkspaceIdSchema, flowPath: MemoryFlowPathSchema, memoryKey: MemoryKeySchema })
  .strict();
export const ResolveMemoryKeyReplySchema = z.object({
  memoryId: MemoryIdSchema,
  /** False when the key was a uuid and is used as is. */
  hashed: z.boolean(),
});
