import { z } from 'zod';
import { discriminatedUnionOf } from './discriminated-union.js';
import { AiTransformSchema, JavascriptTransformSchema } from './input-transform.schema.js';
import { named } from './openflow.registry.js';

export const AI_PROVIDER_KINDS = [
  'openai',
  'azure_openai',
  'azure_foundry',
  'anthropic',
  'mistral',
  'deepseek',
  'googleai',
  'groq',
  'openrouter',
  'togetherai',
  'customai',
  'aws_bedrock',
  'typesafe',
  'cloudflare',
] as const;

export const AIProviderKindSchema = named(
  'AIProviderKind',
  'Supported AI provider types.',
  z.enum(AI_PROVIDER_KINDS),
);

export const ProviderConfigSchema = named(
  'ProviderConfig',
  'AI provider configuration: the credentials resource and the model.',
  z.looseObject({
    kind: AIProviderKindSchema,
    resource: z.string(),
    model: z.string(),
    reasoning_effort: z.string().optional(),
  }),
);

export const StaticProviderTransformSchema = named(
  'StaticProviderTransform',
  'Static provider configuration passed directly to the AI step.',
  z.looseObject({
    value: ProviderConfigSchema,
    type: z.literal('static'),
  }),
);

export const ProviderTransformSchema = named(
  'ProviderTransform',
  'Provider configuration: static, a JavaScript expression, or AI-determined.',
  discriminatedUnionOf('type', 'transform type', [
    StaticProviderTransformSchema,
    JavascriptTransformSchema,
    AiTransformSchema,
  ]),
);

export type AIProviderKind = z.infer<typeof AIProviderKindSchema>;
export type ProviderConfig = z.infer<typeof ProviderConfigSchema>;
export type StaticProviderTransform = z.infer<typeof StaticProviderTransformSchema>;
export type ProviderTransform = z.infer<typeof ProviderTransformSchema>;
