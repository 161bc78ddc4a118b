import { z } from 'zod';
import { createContractClient, defineRequest, type RequestTransport } from '../messaging/contract.js';
import { AgentActionSchema } from '../openflow/flow-status.schema.js';
import { RecordingRefSchema } from '../ai/recording.schema.js';
import { MultitaskStrategySchema } from '../memory/memory-lock.schema.js';
import { PinnedAgentsSchema } from './jobs.schema.js';
import { AgentStepCapsSchema } from './workspace-settings.contract.js';

/** A `javascript` input of a tool, evaluated when the step started: its value, or why it has none. */
export const EvaluatedToolInputSchema = z.object({
  /** Absent when the expression evaluated to undefined (the input is left out, as for a step). */
  value: z.unknown().optional(),
  error: z.string().optional(),
});
export type EvaluatedToolInput = z.infer<typeof EvaluatedToolInputSchema>;

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
  /** The path of the flow the step belongs to (memory is kept per flow); absent for a preview. */
  flow_path: z.string().optional(),
  /**
   * The `javascript` inputs of the step's tools (its inline tools' and its `tool_inputs`), by tool
   * id then input name, evaluated in the flow's context when the step started: the flow's scope
   * (`flow_input`, `results`, ...) does not change while the step runs.
   */
  tool_inputs: z.record(z.string(), z.record(z.string(), EvaluatedToolInputSchema)).optional(),
  /** The run's memory id (`flow_status.memory_id` of the run's flow), when it was started with one. */
  memory_id: z.string().optional(),
  /**
   * What the step does when another run holds or waits for its memory: the run's
   * `multitask_strategy`, else its flow's; absent: `enqueue`.
   */
  multitask_strategy: MultitaskStrategySchema.optional(),
  /**
   * The run is a chat (its flow has `chat_input_enabled` and the run a memory id): the step
   * appends its messages to the conversation's transcript unless `omit_output_from_conversation`.
   */
  chat: z.boolean().optional(),
  /** The run is a preview of the caller's agent drafts: a linked step reads its agent's draft first. */
  agent_drafts: z.boolean().optional(),
  /**
   * The run pinned its agents (`RunFlowRequest.pin_agents`): the definitions read when it started,
   * by path. A linked step uses its agent's from here and passes them on to nested agent tools.
   */
  pinned_agents: PinnedAgentsSchema.optional(),
  /** The saved flows the step runs inside, outermost first: the flows its tools run nest under them. */
  flow_chain: z.array(z.string()).optional(),
  /** The run is a nested agent tool (`RunFlowRequest.agent_tool`): no question tool, no approvals. */
  agent_tool: z.boolean().optional(),
  /** How deep the run nests as an agent tool (`RunFlowRequest.agent_depth`); absent: 0, a top-level run. */
  agent_depth: z.int().min(0).optional(),
  /** The workspace's caps on agent steps, which the step's own settings cannot raise. */
  caps: AgentStepCapsSchema.optional(),
  /** The run records or replays its model calls (`RunFlowRequest.recording`): every gateway request carries it. */
  recording: RecordingRefSchema.optional(),
});
export type AgentStepStartRequest = z.infer<typeof AgentStepStartRequestSchema>;
export const AgentStepStartReplySchema = z.object({ accepted: z.boolean() });

/**
 * An answer to a parked step (an approval request, a question), forwarded by the orchestrator
 * from `POST jobs/flow/resume/{step job id}` once it knows who answers. `payload` is the resume
 * body: `call_id` (the request answered; an answer naming an earlier one is ignored), `comment`,
 * and for a question `answer` (a string, or a list with `multi_select`).
 */
export const AgentStepAnswerRequestSchema = z.object({
  job_id: z.uuid(),
  workspace: z.string(),
  approve: z.boolean(),
  payload: z.unknown(),
  approver: z.string(),
});
export type AgentStepAnswerRequest = z.infer<typeof AgentStepAnswerRequestSchema>;
/** The resume body an answer to a parked step carries. */
export const AgentAnswerPayloadSchema = z.looseObject({
  call_id: z.string().optional(),
  /**
   * The approval's own verdict, as issue 22 gives Windmill's payload `{call_id, approved, comment}`:
   * false rejects even when the resume itself approves (a call runs only when both say so).
   */
  approved: z.boolean().optional(),
  comment: z.string().max(10_000).optional(),
  answer: z.union([z.string(), z.array(z.string())]).optional(),
});

/** `resumed`: the step goes on with the answer; `waiting`: the answer named another request. */
export const AgentStepAnswerReplySchema = z.object({ outcome: z.enum(['resumed', 'waiting']) });
export type AgentStepAnswerReply = z.infer<typeof AgentStepAnswerReplySchema>;

/** What a parked step waits for; null when it runs again. */
export const AgentStepWaitingSchema = z
  .object({ kind: z.enum(['approval', 'question']), call_id: z.string(), until: z.iso.datetime() })
  .nullable();
export type AgentStepWaiting = z.infer<typeof AgentStepWaitingSchema>;

export const agentStepContract = {
  start: defineRequest('agent.step.start', AgentStepStartRequestSchema, AgentStepStartReplySchema, {
    timeoutMs: 10_000,
  }),
  answer: defineRequest('agent.step.answer', AgentStepAnswerRequestSchema, AgentStepAnswerReplySchema),
} as const;

/**
 * Reported by agent-runtime: one action of the step (`flow_status.modules[i].agent_actions`), its
 * `success` beside it (`agent_actions_success`). With `settle`, the action (a `tool_call` by its
 * `job_id`, an `mcp_tool_call` by its `call_id`) was reported before its tool ran: only its
 * success is set, once the tool ended.
 */
export const AgentStepActionRequestSchema = z.object({
  job_id: z.uuid(),
  workspace: z.string(),
  action: AgentActionSchema,
  success: z.boolean().optional(),
  settle: z.boolean().optional(),
});

/** One action of a step as `complete` carries it. */
export const ReportedAgentActionSchema = z.object({ action: AgentActionSchema, success: z.boolean() });
export type ReportedAgentAction = z.infer<typeof ReportedAgentActionSchema>;

/**
 * Reported by agent-runtime when the step ends: its result, or `{ error }` with success false;
 * `actions`, its last actions that were not reported on their own (the final answer's message),
 * appended after those in the same write that ends the step.
 */
export const AgentStepCompleteRequestSchema = z.object({
  job_id: z.uuid(),
  workspace: z.string(),
  success: z.boolean(),
  result: z.unknown(),
  actions: z.array(ReportedAgentActionSchema).max(100).optional(),
});
export type AgentStepCompleteRequest = z.infer<typeof AgentStepCompleteRequestSchema>;

/** Reported by agent-runtime: a line of the step's job log (an input it ignored, a fallback it took). */
export const AgentStepLogRequestSchema = z.object({
  job_id: z.uuid(),
  workspace: z.string(),
  line: z.string().max(4_096),
});

export const orchestratorAgentStepContract = {
  reportAction: defineRequest(
    'orchestrator.agent_step.action',
    AgentStepActionRequestSchema,
    z.object({ recorded: z.boolean() }),
  ),
  /** The step parks (its job `suspended`, `runtime.agentWait` says on what) or runs again; false once it ended. */
  wait: defineRequest(
    'orchestrator.agent_step.wait',
    z.object({ job_id: z.uuid(), workspace: z.string(), waiting: AgentStepWaitingSchema }),
    z.object({ recorded: z.boolean() }),
  ),
  log: defineRequest(
    'orchestrator.agent_step.log',
    AgentStepLogRequestSchema,
    z.object({ recorded: z.boolean() }),
  ),
  complete: defineRequest(
    'orchestrator.agent_step.complete',
    AgentStepCompleteRequestSchema,
    z.object({ accepted: z.boolean() }),
  ),
  /**
   * Which of these AI step jobs left the queue (ended, or unknown): agent-runtime's periodic sweep
   * drops their parked checkpoints, whose cancel it may have missed. A read: it changes nothing.
   */
  ended: defineRequest(
    'orchestrator.agent_step.ended',
    z.object({
      steps: z.array(z.object({ job_id: z.uuid(), workspace: z.string() })).max(500),
    }),
    z.object({ ended: z.array(z.uuid()) }),
  ),
} as const;

export function createAgentStepClient(transport: RequestTransport) {
  return createContractClient(agentStepContract, transport);
}
export function createOrchestratorAgentStepClient(transport: RequestTransport) {
  return createContractClient(orchestratorAgentStepContract, transport);
}
