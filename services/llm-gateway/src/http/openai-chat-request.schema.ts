import { EMBEDDING_INPUT_TYPES } from '@flowmesh/contracts';
import { z } from 'zod';

/**
 * The OpenAI Chat Completions request as the official SDKs send it: what the gateway reads,
 * strict where a wrong shape would change the answer, open (`looseObject`) where OpenAI keeps
 * adding optional fields the gateway can ignore (`seed`, `metadata`, `store`, ...).
 */
const TextPart = z.looseObject({ type: z.literal('text'), text: z.string() });
const ImagePart = z.looseObject({
  type: z.literal('image_url'),
  image_url: z.looseObject({ url: z.string().min(1), detail: z.string().optional() }),
});
const FilePart = z.looseObject({
  type: z.literal('file'),
  file: z.looseObject({
    file_data: z.string().optional(),
    filename: z.string().optional(),
    file_id: z.string().optional(),
  }),
});
const RefusalPart = z.looseObject({ type: z.literal('refusal'), refusal: z.string() });
const AudioPart = z.looseObject({ type: z.literal('input_audio') });

export const OpenAIUserContentPartSchema = z.discriminatedUnion('type', [
  TextPart,
  ImagePart,
  FilePart,
  AudioPart,
]);
export type OpenAIUserContentPart = z.infer<typeof OpenAIUserContentPartSchema>;

const OpenAIToolCallSchema = z.looseObject({
  id: z.string().min(1),
  type: z.literal('function').default('function'),
  function: z.looseObject({ name: z.string().min(1), arguments: z.string() }),
});

const textOrParts = <T extends z.ZodType>(part: T) => z.union([z.string(), z.array(part)]);

export const OpenAIMessageSchema = z.discriminatedUnion('role', [
  z.looseObject({ role: z.literal('system'), content: textOrParts(TextPart) }),
  z.looseObject({ role: z.literal('developer'), content: textOrParts(TextPart) }),
  z.looseObject({ role: z.literal('user'), content: textOrParts(OpenAIUserContentPartSchema) }),
  z.looseObject({
    role: z.literal('assistant'),
    content: textOrParts(z.discriminatedUnion('type', [TextPart, RefusalPart])).nullish(),
    tool_calls: z.array(OpenAIToolCallSchema).optional(),
    reasoning_content: z.string().nullish(),
  }),
  z.looseObject({ role: z.literal('tool'), tool_call_id: z.string().min(1), content: textOrParts(TextPart) }),
]);
export type OpenAIMessage = z.infer<typeof OpenAIMessageSchema>;

const OpenAIToolSchema = z.looseObject({
  type: z.literal('function'),
  function: z.looseObject({
    name: z.string().min(1),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullish(),
  }),
});

const OpenAIToolChoiceSchema = z.union([
  z.enum(['auto', 'none', 'required']),
  z.looseObject({ type: z.literal('function'), function: z.looseObject({ name: z.string().min(1) }) }),
]);

const OpenAIResponseFormatSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text') }),
  z.looseObject({ type: z.literal('json_object') }),
  z.looseObject({
    type: z.literal('json_schema'),
    json_schema: z.looseObject({
      name: z.string().min(1),
      description: z.string().optional(),
      schema: z.record(z.string(), z.unknown()).optional(),
      strict: z.boolean().nullish(),
    }),
  }),
]);

export const OpenAIChatRequestSchema = z.looseObject({
  model: z.string().min(1, 'must not be empty'),
  messages: z.array(OpenAIMessageSchema).min(1, 'needs at least one message'),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
  tools: z.array(OpenAIToolSchema).optional(),
  tool_choice: OpenAIToolChoiceSchema.optional(),
  parallel_tool_calls: z.boolean().optional(),
  response_format: OpenAIResponseFormatSchema.optional(),
  temperature: z.number().nullish(),
  top_p: z.number().nullish(),
  max_tokens: z.int().positive().nullish(),
  max_completion_tokens: z.int().positive().nullish(),
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  reasoning_effort: z.string().nullish(),
  n: z.literal(1, { error: () => 'only n=1 is supported' }).nullish(),
});
export type OpenAIChatRequest = z.infer<typeof OpenAIChatRequestSchema>;

export const OpenAIEmbeddingsRequestSchema = z.looseObject({
  model: z.string().min(1, 'must not be empty'),
  input: z.union([z.string(), z.array(z.string()).min(1)]),
  dimensions: z.int().positive().optional(),
  encoding_format: z.enum(['float', 'base64']).optional(),
  /** Not OpenAI's: what the texts are for (Cohere's `input_type`), for models that are told. */
  input_type: z.enum(EMBEDDING_INPUT_TYPES).optional(),
});
export type OpenAIEmbeddingsRequest = z.infer<typeof OpenAIEmbeddingsRequestSchema>;
