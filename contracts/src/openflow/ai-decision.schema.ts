import { z } from 'zod';
import { describeValue } from './describe-value.js';
import { discriminatedUnionOf } from './discriminated-union.js';
import { humanIssueMessage } from './issue-message.js';
import { JsonObjectSchema } from './json-object.schema.js';

// The `aidecision` module's value schema lives in flow-module.schema.ts (its `branches` hold
// modules); here are the rules of what its inputs evaluate to, shared by the flow check, the
// step (agent-runtime) and the gateway's `gateway.decide` contract.

/** Decision models: TypeSafe's Jev, Cloudflare's Jev-compatible Clef, OpenAI's Decisions API. */
export const AI_DECISION_PROVIDER_KINDS = ['typesafe', 'cloudflare', 'openai'] as const;
export type AiDecisionProviderKind = (typeof AI_DECISION_PROVIDER_KINDS)[number];

/** The model each decision provider runs unless the step pins one. */
export const AI_DECISION_DEFAULT_MODELS: Readonly<Record<AiDecisionProviderKind, string>> = {
  typesafe: 'jev-latest',
  cloudflare: 'clef',
  openai: 'gpt-6-luna',
};

/** Cloudflare serves two decision models (Workers AI `@cf/cloudflare/<model>`). */
export const CLOUDFLARE_DECISION_MODELS = ['clef', 'clef-flash'] as const;

export const MAX_CHOICE_OPTIONS = 255;
export const MIN_SCORE_LEVELS = 2;
export const MAX_SCORE_LEVELS = 10;

/** The `provider` input: a decision provider's kind, its credentials resource, a model or its default. */
export const AiDecisionProviderSchema = z
  .looseObject({
    kind: z.enum(AI_DECISION_PROVIDER_KINDS, {
      error: (issue) =>
        issue.input === undefined
          ? 'required'
          : `must be a decision model provider (${AI_DECISION_PROVIDER_KINDS.join(', ')}), got ${describeValue(issue.input)}`,
    }),
    resource: z.union([z.string().min(1), z.record(z.string(), z.unknown())], {
      error: (issue) =>
        issue.input === undefined
          ? 'required'
          : "must be a resource path or the resource's fields (an object)",
    }),
    model: z.string().optional(),
  })
  .superRefine((provider, ctx) => {
    if (
      provider.kind === 'cloudflare' &&
      provider.model &&
      !(CLOUDFLARE_DECISION_MODELS as readonly string[]).includes(provider.model)
    )
      ctx.addIssue({
        code: 'custom',
        path: ['model'],
        message: `cloudflare serves the decision models ${CLOUDFLARE_DECISION_MODELS.join(', ')}, not ${describeValue(provider.model)}`,
      });
  });

export const AiDecisionStateSchema = z.union(
  [z.string().min(1, 'must not be empty'), JsonObjectSchema, z.array(z.string())],
  { error: 'expected a string, an object or an array of strings' },
);

const Instructions = z.string().min(1, 'must not be empty');

export const AiDecisionQuestionSchema = discriminatedUnionOf('type', 'question type', [
  z.strictObject({
    type: z.literal('choice'),
    instructions: Instructions,
    criteria: z
      .record(z.string().min(1, 'an option needs a name'), z.string())
      .refine((options) => Object.keys(options).length >= 1, { error: 'needs at least one option' })
      .refine((options) => Object.keys(options).length <= MAX_CHOICE_OPTIONS, {
        error: (issue) =>
          `must have at most ${MAX_CHOICE_OPTIONS} options, has ${Object.keys(issue.input as object).length}`,
      }),
  }),
  z.strictObject({
    type: z.literal('score'),
    instructions: Instructions,
    criteria: z
      .array(z.string().min(1, 'a level needs a description'), {
        error: 'expected an ordered array of level descriptions',
      })
      .min(MIN_SCORE_LEVELS, `must have at least ${MIN_SCORE_LEVELS} levels`)
      .max(MAX_SCORE_LEVELS, `must have at most ${MAX_SCORE_LEVELS} levels`),
  }),
  z.strictObject({
    type: z.literal('noul'),
    instructions: Instructions,
    criteria: z.strictObject({ true: z.string().optional(), false: z.string().optional() }).optional(),
  }),
]);

export const AiDecisionQuestionsSchema = z
  .record(z.string().min(1, 'a question needs a name'), AiDecisionQuestionSchema, {
    error: 'expected an object mapping each question name to { type, instructions, criteria }',
  })
  .refine((questions) => Object.keys(questions).length > 0, { error: 'needs at least one question' });

export type AiDecisionProvider = z.infer<typeof AiDecisionProviderSchema>;
export type AiDecisionState = z.infer<typeof AiDecisionStateSchema>;
export type AiDecisionQuestion = z.infer<typeof AiDecisionQuestionSchema>;
export type AiDecisionQuestions = z.infer<typeof AiDecisionQuestionsSchema>;

// Answers, as the gateway normalizes every provider's: probabilities are in [0, 1].

const Probability = z.number().min(0).max(1);

export const ChoiceAnswerSchema = z.object({
  type: z.literal('choice'),
  /** The most probable option. */
  choice: z.string(),
  /** Each option's probability. */
  probabilities: z.record(z.string(), Probability),
  confidence: Probability,
});

export const ScoreAnswerSchema = z.object({
  type: z.literal('score'),
  /** The most probable level, 0-based in the criteria's order. */
  score: z.int().nonnegative(),
  /** The chosen level's description. */
  legend: z.string(),
  /** Each level's probability, in the criteria's order. */
  probabilities: z.array(Probability),
  confidence: Probability,
});

export const NoulAnswerSchema = z.object({
  type: z.literal('noul'),
  /** The probability of yes. */
  noul: Probability,
});

export const DecisionAnswerSchema = z.discriminatedUnion('type', [
  ChoiceAnswerSchema,
  ScoreAnswerSchema,
  NoulAnswerSchema,
]);
export type DecisionAnswer = z.infer<typeof DecisionAnswerSchema>;

export const DecisionUsageSchema = z.object({
  inputTokens: z.int().nonnegative(),
  outputTokens: z.int().nonnegative(),
});

/** An `aidecision` step's result: `{ output: { <question>: answer }, model, usage }`. */
export const AiDecisionResultSchema = z.object({
  output: z.record(z.string(), DecisionAnswerSchema),
  model: z.string(),
  usage: DecisionUsageSchema,
});
export type AiDecisionResult = z.infer<typeof AiDecisionResultSchema>;

/** One violated rule of a decision's inputs: where (under `input_transforms`) and why. */
export interface AiDecisionIssue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/**
 * Every rule of a decision's evaluated inputs (`provider`, `state`, `questions`), each violation
 * with its path from the inputs (`questions.intent.criteria`): checked before a call is made.
 */
export function aiDecisionInputIssues(inputs: {
  readonly provider?: unknown;
  readonly state?: unknown;
  readonly questions?: unknown;
}): AiDecisionIssue[] {
  const schemas = {
    provider: AiDecisionProviderSchema,
    state: AiDecisionStateSchema,
    questions: AiDecisionQuestionsSchema,
  } as const;
  return (Object.keys(schemas) as (keyof typeof schemas)[]).flatMap((name) =>
    decisionValueIssues(name, inputs[name], schemas[name]),
  );
}

/** The issues of one input's value (`required` when it is absent). */
export function decisionValueIssues(name: string, value: unknown, schema: z.ZodType): AiDecisionIssue[] {
  if (value === undefined || value === null) return [{ path: [name], message: 'required' }];
  const parsed = schema.safeParse(value, { error: humanIssueMessage });
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) => ({ path: [name, ...issue.path], message: issue.message }));
}

/** The provider as a call needs it: the step's model, else the kind's default. */
export function decisionProviderOf(provider: AiDecisionProvider): {
  kind: AiDecisionProviderKind;
  resource: string | Record<string, unknown>;
  model: string;
} {
  return {
    kind: provider.kind,
    resource: provider.resource,
    model: provider.model || AI_DECISION_DEFAULT_MODELS[provider.kind],
  };
}
