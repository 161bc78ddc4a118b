import {
  aiDecisionInputIssues,
  AiDecisionProviderSchema,
  AiDecisionQuestionsSchema,
  AiDecisionStateSchema,
  createGatewayClient,
  decisionProviderOf,
  FaultClassSchema,
  MeshError,
  type FaultClass,
  type AgentStepStartRequest,
} from '@flowmesh/contracts';
import type { MeshClient } from '@flowmesh/messaging';
import { stepUsage } from '../loop/usage.js';

/** A decision model's failure (the gateway's error class and whose fault), as a step's error. */
export class AiDecisionError extends Error {
  override readonly name = 'AiDecisionError';
  constructor(
    message: string,
    readonly errorClass?: string,
    readonly fault?: FaultClass,
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
  const issues = aiDecisionInputIssues(args);
  if (issues.length > 0) {
    const where = (path: readonly PropertyKey[]) => `input_transforms.${path.map(String).join('.')}`;
    throw new MeshError(
      'VALIDATION_FAILED',
      issues.map((issue) => `${where(issue.path)}: ${issue.message}`).join('; '),
      {
        param: where(issues[0].path),
        issues: issues.map((issue) => ({ ...issue, path: where(issue.path) })),
      },
    );
  }
  const provider = decisionProviderOf(AiDecisionProviderSchema.parse(args.provider));
  const state = AiDecisionStateSchema.parse(args.state);
  const questions = AiDecisionQuestionsSchema.parse(args.questions);
  try {
    const reply = await createGatewayClient(mesh).decide({
      actor: { token: request.job_token },
      workspace: request.workspace,
      provider,
      state,
      questions,
      ...(request.recording ? { recording: request.recording } : {}),
    });
    return { output: reply.answers, model: reply.model, usage: stepUsage(reply.usage) };
  } catch (error) {
    if (error instanceof MeshError && error.code !== 'VALIDATION_FAILED') {
      const details = (error.details ?? {}) as { class?: unknown; fault?: unknown };
      const fault = FaultClassSchema.safeParse(details.fault);
      throw new AiDecisionError(
        error.message,
        typeof details.class === 'string' ? details.class : undefined,
        fault.success ? fault.data : undefined,
      );
    }
    throw error;
  }
}
