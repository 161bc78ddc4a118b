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

/**
 * A provider's credentials given in place of a resource path, as Windmill's `ProviderResource`:
 * every field optional, unknown ones ignored. Windmill's names (`apiKey`, `baseUrl`,
 * `enable_1M_context`, `headers`) and the resource type's own (`api_key`, `base_url`,
 * `enable_1m_context`, `custom_headers`, `region`, `aws_*`, `platform`, ...) are both read. A field
 * may be a `$var:` reference: only the llm-gateway resolves it, as the step.
 */
export const InlineProviderResourceSchema = named(
  'InlineProviderResource',
  "A provider's credentials inline (Windmill's ProviderResource); fields may be $var: references.",
  z.record(z.string(), z.unknown()),
);

export const ProviderConfigSchema = named(
  'ProviderConfig',
  'AI provider configuration: the credentials resource (a path, or its fields inline) and the model.',
  z.looseObject({
    kind: AIProviderKindSchema,
    resource: z.union([z.string(), InlineProviderResourceSchema], {
      error: (issue) =>
        issue.input === undefined
          ? 'required'
          : "must be a resource path or the resource's fields (an object)",
    }),
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

/**
 * An `aidecision` step's provider: a provider config whose model may be left out (each decision
 * provider has a default); which kinds and models serve decisions is the rules' check.
 */
export const DecisionProviderTransformSchema = named(
  'DecisionProviderTransform',
  "A decision step's provider: static (model optional), a JavaScript expression, or AI-determined.",
  discriminatedUnionOf('type', 'transform type', [
    named(
      'StaticDecisionProviderTransform',
      'Static decision provider configuration; the model defaults per provider kind.',
      z.looseObject({
        value: ProviderConfigSchema.omit({ reasoning_effort: true }).partial({ model: true }),
        type: z.literal('static'),
      }),
    ),
    JavascriptTransformSchema,
    AiTransformSchema,
  ]),
);

export type AIProviderKind = z.infer<typeof AIProviderKindSchema>;
export type InlineProviderResource = z.infer<typeof InlineProviderResourceSchema>;

/** How a provider resource is named in events, audit rows and spans: its path, or `inline` (never its fields). */
export function providerResourceLabel(resource: string | InlineProviderResource): string {
  return typeof resource === 'string' ? resource : 'inline';
}
export type ProviderConfig = z.infer<typeof ProviderConfigSchema>;
export type StaticProviderTransform = z.infer<typeof StaticProviderTransformSchema>;
export type ProviderTransform = z.infer<typeof ProviderTransformSchema>;
