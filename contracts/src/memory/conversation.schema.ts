import { z } from 'zod';
import { ItemPathSchema, WorkspaceIdSchema } from '../registry/access-path.js';
import { ActorSchema } from '../registry/identity.schema.js';
import { MemoryIdSchema, MemoryKeySchema, StepIdSchema } from './memory.schema.js';

/**
 * Chat conversations of flows, answered by memory-service. A conversation is named by the run's
 * memory id (the chat conversation id), and its transcript always follows that id, even when a
 * step keeps its memory under its own. Deleting a conversation deletes its memories.
 */

/** Who wrote a transcript entry; `system` is a note of the flow itself (an error, a skipped save). */
export const TranscriptRoleSchema = z.enum(['user', 'assistant', 'tool', 'system']);
export type TranscriptRole = z.infer<typeof TranscriptRoleSchema>;

export const ConversationSchema = z.object({
  id: MemoryIdSchema,
  flowPath: z.string(),
  title: z.string().nullable(),
  messageCount: z.number().int().nonnegative(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Conversation = z.infer<typeof ConversationSchema>;

export const ConversationMessageSchema = z.object({
  id: z.uuid(),
  conversationId: MemoryIdSchema,
  /** Position in the transcript, from 1. */
  seq: z.number().int().positive(),
  role: TranscriptRoleSchema,
  content: z.string(),
  jobId: z.string(),
  stepId: z.string().nullable(),
  createdAt: z.string(),
});
export type ConversationMessage = z.infer<typeof ConversationMessageSchema>;

const inFlow = { actor: ActorSchema, workspace: WorkspaceIdSchema, flowPath: ItemPathSchema };
const inWorkspace = { actor: ActorSchema, workspace: WorkspaceIdSchema };
const paging = {
  page: z.number().int().positive().default(1),
  perPage: z.number().int().positive().max(1000).default(100),
};

/** Opens (or finds) the conversation of a run's memory id. */
export const StartConversationRequestSchema = z
  .object({
    ...inFlow,
    /** The run's memory id: a uuid, or any string resolved as a memory key of this flow. */
    conversation: MemoryKeySchema,
    title: z.string().max(255).optional(),
  })
  .strict();

export const AppendConversationMessageRequestSchema = z
  .object({
    ...inFlow,
    /** The run's memory id, never a step's own. The conversation is opened if it does not exist. */
    conversation: MemoryKeySchema,
    jobId: z.string().min(1, 'must not be empty').max(128),
    stepId: StepIdSchema.optional(),
    role: TranscriptRoleSchema,
    content: z.string(),
  })
  .strict();
export const AppendConversationMessageReplySchema = z.object({
  conversationId: MemoryIdSchema,
  messageId: z.uuid(),
  seq: z.number().int().positive(),
});

export const ListConversationsRequestSchema = z
  .object({ ...inWorkspace, flowPath: ItemPathSchema.optional(), ...paging })
  .strict();
export const ListConversationsReplySchema = z.object({
  conversations: z.array(ConversationSchema),
  page: z.number().int(),
  perPage: z.number().int(),
});

export const ListConversationMessagesRequestSchema = z
  .object({
    ...inWorkspace,
    conversationId: MemoryIdSchema,
    /** `asc`: oldest first (a transcript); `desc`: newest first (a chat scrolling back). */
    order: z.enum(['asc', 'desc']).default('asc'),
    ...paging,
  })
  .strict();
export const ListConversationMessagesReplySchema = z.object({
  messages: z.array(ConversationMessageSchema),
  page: z.number().int(),
  perPage: z.number().int(),
});

export const DeleteConversationRequestSchema = z
  .object({ ...inWorkspace, conversationId: MemoryIdSchema })
  .strict();
export const DeleteConversationReplySchema = z.object({
  conversationId: MemoryIdSchema,
  /** Transcript entries and memories (one per step) removed with it. */
  messagesDeleted: z.number().int().nonnegative(),
  memoriesDeleted: z.number().int().nonnegative(),
});
