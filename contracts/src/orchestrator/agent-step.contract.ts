import { z } from 'zod';
import { createContractClient, defineRequest, type RequestTransport } from '../messaging/contract.js';
import { AgentActionSchema } from '../openflow/flow-status.schema.js';

/**
 * How the orchestrator hands an `aiagent` / `aidecision` step to agent-runtime, and how it hears
 * back. `start` is a request so that a mesh without agent-runtime fails the step at once ("no
 * agent runtime answered") instead of leaving it queued; agent-runtime accepts it durably, runs
 * it, reports each action and finally completes the step job.
 */
export const AgentStepStartRequestSchema = z.object({
  job_id: z.uuid(),
  workspace: z.string(),
  kind: z.enum(['aiagent', 'aidecision']),
  root_job: z.uuid(),
  flow_job: z.uuid(),
  step_id: z.string(),
  /** The module value (`AiAgent` / `AiDecision`) as written in the flow. */
  module: z.record(z.string(), z.unknown()),
  /** Its input_transforms, evaluated. */
  args: z.record(z.string(), z.unknown()),
  tag: z.string(),
  /** The step's job token (acts as the run's identity, narrowed by job_token_scopes). */
  job_token: z.string(),
  /** The flow context tool input transforms may read. */
  flow_input: z.unknown(),
});
export type AgentStepStartRequest = z.infer<typeof AgentStepStartRequestSchema>;
export const AgentStepStartReplySchema = z.object({ accepted: z.boolean() });

export const agentStepContract = {
  start: defineRequest('agent.step.start', AgentStepStartRequestSchema, AgentStepStartReplySchema, {
    timeoutMs: 10_000,
  }),
} as const;

/** Reported by agent-runtime: one action of the step (`flow_status.modules[i].agent_actions`). */
export const AgentStepActionRequestSchema = z.object({
  job_id: z.uuid(),
  workspace: z.string(),
  action: AgentActionSchema,
  success: z.boolean().optional(),
});

/** Reported by agent-runtime when the step ends: its result, or `{ error }` with success false. */
export const AgentStepCompleteRequestSchema = z.object({
  job_id: z.uuid(),
  workspace: z.string(),
  success: z.boolean(),
  result: z.unknown(),
});
export type AgentStepCompleteRequest = z.infer<typeof AgentStepCompleteRequestSchema>;

export const orchestratorAgentStepContract = {
  reportAction: defineRequest(
    'orchestrator.agent_step.action',
    AgentStepActionRequestSchema,
    z.object({ recorded: z.boolean() }),
  ),
  complete: defineRequest(
    'orchestrator.agent_step.complete',
    AgentStepCompleteRequestSchema,
    z.object({ accepted: z.boolean() }),
  ),
} as const;

export function createAgentStepClient(transport: RequestTransport) {
  return createContractClient(agentStepContract, transport);
}
export function createOrchestratorAgentStepClient(transport: RequestTransport) {
  return createContractClient(orchestratorAgentStepContract, transport);
}
