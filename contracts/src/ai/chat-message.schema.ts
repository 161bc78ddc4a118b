import { z } from 'zod';

/**
 * The one provider-neutral message model of the mesh: what agent memory stores and what the
 * llm-gateway's chat API takes. It carries exactly what is needed to replay a conversation to any
 * provider (OpenAI chat and Responses, Anthropic, Gemini, Bedrock Converse):
 *
 * - `user`: text and attachments (attachments are object references, never inline bytes);
 * - `assistant`: text, reasoning (with the opaque signature Anthropic wants echoed back) and tool
 *   calls (arguments kept as the JSON text the model produced; Gemini's thought signature kept on
 *   the call);
 * - `tool`: the result of one call, naming the call id and the tool (Gemini matches results by
 *   name, the others by id);
 * - `summary`: what compaction put in place of older exchanges; the gateway replays it as context.
 *
 * There is no `system` role and no tool definition here: the system prompt and the tools are
 * request settings, never part of a stored history.
 */

/** An object in the workspace's object storage, by key. */
export const ObjectReferenceSchema = z
  .object({
    /** Object key in the storage. */
    key: z.string().min(1, 'must not be empty').max(1024),
    /** A named secondary storage; absent: the workspace's default storage. */
    storage: z.string().min(1).max(255).optional(),
  })
  .strict();
export type ObjectReference = z.infer<typeof ObjectReferenceSchema>;

export const TextPartSchema = z.object({ type: z.literal('text'), text: z.string() }).strict();
export type TextPart = z.infer<typeof TextPartSchema>;

export const AttachmentPartSchema = z
  .object({
    type: z.literal('attachment'),
    object: ObjectReferenceSchema,
    /** `image/png`, `application/pdf`, ... */
    mediaType: z.string().regex(/^[\w.+-]+\/[\w.+-]+$/, 'must be a media type such as image/png'),
    filename: z.string().min(1).max(255).optional(),
  })
  .strict();
export type AttachmentPart = z.infer<typeof AttachmentPartSchema>;

export const ReasoningPartSchema = z
  .object({
    type: z.literal('reasoning'),
    text: z.string(),
    /** Opaque token the provider requires back unchanged on the next turn (Anthropic thinking). */
    signature: z.string().optional(),
    /** Reasoning the provider returned encrypted (Anthropic `redacted_thinking` data). */
    redacted: z.string().optional(),
  })
  .strict();
export type ReasoningPart = z.infer<typeof ReasoningPartSchema>;

const userPart = z.discriminatedUnion('type', [TextPartSchema, AttachmentPartSchema]);
const assistantPart = z.discriminatedUnion('type', [TextPartSchema, ReasoningPartSchema]);

export const ToolCallSchema = z
  .object({
    id: z.string().min(1, 'must not be empty').max(256),
    name: z.string().min(1, 'must not be empty').max(256),
    /** The arguments as the model produced them (JSON text), kept verbatim for replay. */
    arguments: z.string(),
    /** Gemini's `thoughtSignature` of this call, echoed back on replay. */
    signature: z.string().optional(),
  })
  .strict();
export type ToolCall = z.infer<typeof ToolCallSchema>;

export const UserMessageSchema = z
  .object({
    role: z.literal('user'),
    content: z.array(userPart).min(1, 'a user message needs at least one part'),
  })
  .strict();
export type UserMessage = z.infer<typeof UserMessageSchema>;

export const AssistantMessageSchema = z
  .object({
    role: z.literal('assistant'),
    content: z.array(assistantPart),
    toolCalls: z.array(ToolCallSchema).optional(),
  })
  .strict();
export type AssistantMessage = z.infer<typeof AssistantMessageSchema>;

export const ToolResultMessageSchema = z
  .object({
    role: z.literal('tool'),
    /** The `id` of the assistant's tool call this answers. */
    toolCallId: z.string().min(1, 'must not be empty').max(256),
    /** The tool's name, as in the call. */
    name: z.string().min(1, 'must not be empty').max(256),
    content: z.array(userPart),
    /** The tool failed; `content` says how. */
    isError: z.boolean().optional(),
  })
  .strict();
export type ToolResultMessage = z.infer<typeof ToolResultMessageSchema>;

export const SummaryMessageSchema = z
  .object({
    role: z.literal('summary'),
    /** The handoff summary that replaced older exchanges. */
    text: z.string().min(1, 'must not be empty'),
    /** How many messages it replaced, for display. */
    replacedMessages: z.number().int().nonnegative().optional(),
  })
  .strict();
export type SummaryMessage = z.infer<typeof SummaryMessageSchema>;

export const CHAT_MESSAGE_ROLES = ['user', 'assistant', 'tool', 'summary'] as const;
export type ChatMessageRole = (typeof CHAT_MESSAGE_ROLES)[number];

export const ChatMessageSchema = z
  .discriminatedUnion(
    'role',
    [UserMessageSchema, AssistantMessageSchema, ToolResultMessageSchema, SummaryMessageSchema],
    {
      error: (issue) =>
        issue.code === 'invalid_union'
          ? `must be one of ${CHAT_MESSAGE_ROLES.join(', ')} (system messages and tool definitions are never part of a history)`
          : undefined,
    },
  )
  .superRefine((message, ctx) => {
    if (message.role === 'assistant' && message.content.length === 0 && !message.toolCalls?.length) {
      ctx.addIssue({
        code: 'custom',
        path: ['content'],
        message: 'an assistant message needs content or tool calls',
      });
    }
  });
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

/**
 * A conversation: messages in order, every tool result answering a call of the assistant message
 * that opened its round (the last assistant message before it). A result with no such call
 * cannot be replayed to any provider.
 */
export const ChatHistorySchema = z.array(ChatMessageSchema).superRefine((messages, ctx) => {
  let openCalls = new Set<string>();
  messages.forEach((message, index) => {
    if (message.role === 'assistant') openCalls = new Set(message.toolCalls?.map((call) => call.id));
    else if (message.role === 'tool') {
      if (!openCalls.has(message.toolCallId)) {
        ctx.addIssue({
          code: 'custom',
          path: [index, 'toolCallId'],
          message: `tool result for call "${message.toolCallId}" answers no tool call of the assistant message before it`,
        });
      }
    } else openCalls = new Set();
  });
});
