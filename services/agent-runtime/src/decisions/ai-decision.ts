import {
  AI_DECISION_PROVIDER_KINDS,
  AiDecisionQuestionsSchema,
  AiDecisionStateSchema,
  createGatewayClient,
  MeshError,
  ProviderConfigSchema,
  type AgentStepStartRequest,
} from '@flowmesh/contracts';
import type { MeshClient } from '@flowmesh/messaging';
import type { z } from 'zod';
import { inputError } from '../loop/agent-brain.js';

/** The model each decision provider runs unless the step pins one. */
const DEFAULT_MODELS: Readonly<Record<(typeof AI_DECISION_PROVIDER_KINDS)[number], string>> = {
  typesafe: 'jev-latest',
  cloudflare: 'clef',
  openai: 'gpt-6-luna',
};

/** A decision model's failure (the gateway's error class), as a step's error. */
export class AiDecisionError extends Error {
  override readonly name = 'AiDecisionError';
  constructor(
    message: string,
    readonly errorClass?: string,
  ) {
    super(message);
  }
}

/**
 * An `aidecision` step: one call to a decision model through the llm-gateway, as the step's
 * identity (`gateway.decide`), with the step's `provider`, `state` and `questions` checked first
 * (a bad one fails the step naming it). Its result is `{ output: { <question>: answer }, model,
 * usage }`, so a later step reads `results.<id>.output.<question>.choice`.
 */
export async function runDecision(
  mesh: MeshClient,
  request: AgentStepStartRequest,
): Promise<Record<string, unknown>> {
  const { args } = request;
  const provider = ProviderConfigSchema.partial({ model: true }).safeParse(args.provider);
  if (!provider.success)
    throw inputError('input_transforms.provider', provider.error.issues[0]?.message ?? 'is not a provider');
  const kind = provider.data.kind as (typeof AI_DECISION_PROVIDER_KINDS)[number];
  if (!AI_DECISION_PROVIDER_KINDS.includes(kind))
    throw inputError(
      'input_transforms.provider.kind',
      `must be a decision provider: ${AI_DECISION_PROVIDER_KINDS.join(', ')}`,
    );
  const state = checked(AiDecisionStateSchema, args.state, 'state');
  const questions = checked(AiDecisionQuestionsSchema, args.questions, 'questions');
  if (Object.keys(questions).length === 0)
    throw inputError('input_transforms.questions', 'needs at least one question');
  try {
    const reply = await createGatewayClient(mesh).decide({
      actor: { token: request.job_token },
      workspace: request.workspace,
      provider: {
        kind,
        resource: provider.data.resource,
        model: provider.data.model || DEFAULT_MODELS[kind],
      },
      state,
      questions,
    });
    return { output: reply.answers, model: reply.model, usage: reply.usage };
  } catch (error) {
    if (error instanceof MeshError && error.code !== 'VALIDATION_FAILED') {
      const errorClass = (error.details as { class?: unknown } | undefined)?.class;
      throw new AiDecisionError(error.message, typeof errorClass === 'string' ? errorClass : undefined);
    }
    throw error;
  }
}

function checked<T>(schema: z.ZodType<T>, value: unknown, name: string): T {
  if (value === undefined || value === null) throw inputError(`input_transforms.${name}`, 'is required');
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? `.${issue.path.join('.')}` : '';
  throw inputError(`input_transforms.${name}${where}`, issue?.message ?? 'is not valid');
}
