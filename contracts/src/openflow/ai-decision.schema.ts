import { z } from 'zod';
import { discriminatedUnionOf } from './discriminated-union.js';
import { InputTransformSchema } from './input-transform.schema.js';
import { JsonObjectSchema } from './json-object.schema.js';
import { named } from './openflow.registry.js';
import { ProviderTransformSchema } from './provider.schema.js';

/** Decision models: TypeSafe's Jev, Cloudflare's Jev-compatible Clef, OpenAI's Decisions API. */
export const AI_DECISION_PROVIDER_KINDS = ['typesafe', 'cloudflare', 'openai'] as const;

export const AiDecisionSchema = named(
  'AiDecision',
  'One call to a decision model that answers typed questions about a state with calibrated probabilities. ' +
    'Its result is { output: { <question name>: answer }, model, usage }.',
  z.looseObject({
    input_transforms: z.looseObject({
      provider: ProviderTransformSchema,
      state: InputTransformSchema,
      questions: InputTransformSchema,
    }),
    type: z.literal('aidecision'),
    tag: z.string().optional(),
  }),
);

// What the `state` and `questions` inputs evaluate to.

export const AiDecisionStateSchema = z.union([z.string(), JsonObjectSchema, z.array(z.string())], {
  error: 'expected a string, an object or an array of strings',
});

const MAX_CHOICE_OPTIONS = 255;

export const AiDecisionQuestionSchema = discriminatedUnionOf('type', 'question type', [
  z.looseObject({
    type: z.literal('choice'),
    instructions: z.string(),
    criteria: z
      .record(z.string(), z.string())
      .refine((options) => Object.keys(options).length <= MAX_CHOICE_OPTIONS, {
        error: `must have at most ${MAX_CHOICE_OPTIONS} options`,
      }),
  }),
  z.looseObject({
    type: z.literal('score'),
    instructions: z.string(),
    criteria: z.array(z.string()).min(2).max(10),
  }),
  z.looseObject({
    type: z.literal('noul'),
    instructions: z.string(),
    criteria: z.looseObject({ true: z.string().optional(), false: z.string().optional() }).optional(),
  }),
]);

export const AiDecisionQuestionsSchema = z.record(z.string(), AiDecisionQuestionSchema);

export type AiDecision = z.infer<typeof AiDecisionSchema>;
export type AiDecisionState = z.infer<typeof AiDecisionStateSchema>;
export type AiDecisionQuestion = z.infer<typeof AiDecisionQuestionSchema>;
