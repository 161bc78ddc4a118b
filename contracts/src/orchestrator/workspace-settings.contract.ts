import { z } from 'zod';
import { createContractClient, defineRequest, type RequestTransport } from '../messaging/contract.js';
import { ActorSchema } from '../registry/identity.schema.js';
import { WorkspaceIdSchema } from '../registry/access-path.js';

/**
 * What one workspace's runs may do, enforced by the engine: a loop's iterations (for loops: the
 * iterator's length, checked before the first iteration; while loops: counted as they run) and a
 * flow's modules (every module of the flow value, nested ones included, checked when a run is
 * started), and what an agent step may do whatever its flow says: its model calls
 * (`max_iterations` above the cap is capped, and the step's log says so), its tool calls (those
 * past the cap are refused to the model), and how deep agents nest as tools of agents (at the
 * cap a step is offered no agent tool). A setting left unset takes its default.
 */
export const WORKSPACE_LIMIT_DEFAULTS = {
  /** Iterations of one forloop or whileloop (squashed or not, parallel or not). */
  max_loop_iterations: 1_000_000,
  /** Modules of one flow, counted through loop bodies, branches, failure and preprocessor modules. */
  max_flow_modules: 20_000,
  /** Model calls of one agent step (its `max_iterations` is capped to this). */
  max_agent_iterations: 1_000,
  /** Tool calls of one agent step, over all its model calls. */
  max_agent_tool_calls: 10_000,
  /** Agents nested as tools of agents: a step at this depth is offered no agent tool. */
  max_agent_depth: 10,
} as const;

const limit = z.number().int().min(1).max(1_000_000_000);

export const WorkspaceSettingsSchema = z
  .object({
    max_loop_iterations: limit,
    max_flow_modules: limit,
    // Defaulted: a reply of an orchestrator from before the agent caps still parses.
    max_agent_iterations: limit.default(WORKSPACE_LIMIT_DEFAULTS.max_agent_iterations),
    max_agent_tool_calls: limit.default(WORKSPACE_LIMIT_DEFAULTS.max_agent_tool_calls),
    max_agent_depth: limit.default(WORKSPACE_LIMIT_DEFAULTS.max_agent_depth),
  })
  .strict();

/** The caps of agent steps, as the orchestrator hands them to agent-runtime with each step. */
export const AgentStepCapsSchema = WorkspaceSettingsSchema.pick({
  max_agent_iterations: true,
  max_agent_tool_calls: true,
  max_agent_depth: true,
});
export type AgentStepCaps = z.infer<typeof AgentStepCapsSchema>;
export type WorkspaceSettings = z.infer<typeof WorkspaceSettingsSchema>;

export const GetWorkspaceSettingsRequestSchema = z
  .object({ actor: ActorSchema, workspace: WorkspaceIdSchema })
  .strict();

/** The settings to change; one absent keeps its value, one `null` goes back to its default. */
export const UpdateWorkspaceSettingsRequestSchema = z
  .object({
    actor: ActorSchema,
    workspace: WorkspaceIdSchema,
    settings: z
      .object({
        max_loop_iterations: limit.nullable().optional(),
        max_flow_modules: limit.nullable().optional(),
        max_agent_iterations: limit.nullable().optional(),
        max_agent_tool_calls: limit.nullable().optional(),
        max_agent_depth: limit.nullable().optional(),
      })
      .strict(),
  })
  .strict();
export type UpdateWorkspaceSettingsRequest = z.infer<typeof UpdateWorkspaceSettingsRequestSchema>;

/**
 * A workspace's engine settings, answered by flow-orchestrator (the engine enforces them, so it
 * keeps them). Any member reads them; only a workspace admin changes them.
 */
export const orchestratorWorkspaceSettingsContract = {
  get: defineRequest(
    'orchestrator.workspace_settings.get',
    GetWorkspaceSettingsRequestSchema,
    WorkspaceSettingsSchema,
  ),
  update: defineRequest(
    'orchestrator.workspace_settings.update',
    UpdateWorkspaceSettingsRequestSchema,
    WorkspaceSettingsSchema,
  ),
} as const;

export function createOrchestratorWorkspaceSettingsClient(transport: RequestTransport) {
  return createContractClient(orchestratorWorkspaceSettingsContract, transport);
}
export type OrchestratorWorkspaceSettingsClient = ReturnType<
  typeof createOrchestratorWorkspaceSettingsClient
>;
