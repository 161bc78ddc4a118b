import { z } from 'zod';
import { InputTransformSchema } from './input-transform.schema.js';
import { JsonObjectSchema } from './json-object.schema.js';
import { MemoryMessageSchema, MemoryTransformSchema } from './memory.schema.js';
import { named } from './openflow.registry.js';
import { ProviderTransformSchema } from './provider.schema.js';

/**
 * Inputs of an AI agent step. None is required by the schema: a step linked to an `ai_agent`
 * resource keeps only the flow-local ones (see FLOW_LOCAL_AGENT_INPUTS), and even user_message
 * may be absent when memory is off and previous_messages is the prompt. The semantic checks
 * enforce those rules.
 */
export const AiAgentInputTransformsSchema = named(
  'AiAgentInputTransforms',
  'Input parameters of an AI agent step mapped to their values.',
  z.looseObject({
    provider: ProviderTransformSchema.optional(),
    output_type: InputTransformSchema.optional(),
    user_message: InputTransformSchema.optional(),
    system_prompt: InputTransformSchema.optional(),
    streaming: InputTransformSchema.optional(),
    memory: MemoryTransformSchema.optional(),
    memory_id: InputTransformSchema.optional(),
    previous_messages: InputTransformSchema.optional(),
    output_schema: InputTransformSchema.optional(),
    user_attachments: InputTransformSchema.optional(),
    enabled_tools: InputTransformSchema.optional(),
    max_completion_tokens: InputTransformSchema.optional(),
    temperature: InputTransformSchema.optional(),
    max_iterations: InputTransformSchema.optional(),
  }),
);

/** The inputs a step linked to an agent resource keeps; the rest (the brain) comes from the resource. */
export const FLOW_LOCAL_AGENT_INPUTS = [
  'user_message',
  'user_attachments',
  'enabled_tools',
  'memory_id',
  'previous_messages',
] as const;

/** The brain inputs: they belong to the agent resource when the step is linked. */
export const AGENT_BRAIN_INPUTS = [
  'provider',
  'output_type',
  'system_prompt',
  'streaming',
  'memory',
  'output_schema',
  'max_completion_tokens',
  'temperature',
  'max_iterations',
] as const;

/** Per tool id, then per input key: host-local overrides of an agent's tool inputs. */
export const AgentToolInputsSchema = z.record(z.string(), z.record(z.string(), InputTransformSchema));

export type AiAgentInputTransforms = z.infer<typeof AiAgentInputTransformsSchema>;
export type AgentToolInputs = z.infer<typeof AgentToolInputsSchema>;

export const UserAttachmentSchema = named(
  'UserAttachment',
  'An S3 object (image or PDF) given to an AI agent.',
  z.looseObject({ bucket: z.string(), key: z.string() }),
);

/**
 * What each agent input evaluates to. The inputs are transforms, so the schema cannot type
 * them; these check a static value when the flow is parsed and a resolved value at run time.
 */
export const AiAgentInputValueSchemas = {
  output_type: z.enum(['text', 'image']),
  user_message: z.string(),
  system_prompt: z.string(),
  streaming: z.boolean(),
  memory_id: z.string(),
  previous_messages: z.array(MemoryMessageSchema),
  output_schema: JsonObjectSchema,
  user_attachments: z.array(UserAttachmentSchema),
  enabled_tools: z.array(z.string()),
  max_completion_tokens: z.int().min(1).max(4_294_967_295),
  temperature: z.number().min(0).max(2),
  max_iterations: z.int().min(1).max(1000),
} as const satisfies Partial<Record<keyof AiAgentInputTransforms, z.ZodType>>;

export type UserAttachment = z.infer<typeof UserAttachmentSchema>;
