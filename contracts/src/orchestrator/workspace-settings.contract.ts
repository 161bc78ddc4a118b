import { z } from 'zod';
import { createContractClient, defineRequest, type RequestTransport } from '../messaging/contract.js';
import { ActorSchema } from '../registry/identity.schema.js';
import { WorkspaceIdSchema } from '../registry/access-path.js';

/**
 * What one workspace's runs may do, enforced by the engine: a loop's iterations (for loops: the
 * iterator's length, checked before the first iteration; while loops: counted as they run) and a
 * flow's modules (every module of the flow value, nested ones included, checked when a run is
 * started). A setting left unset takes its default.
 */
export const WORKSPACE_LIMIT_DEFAULTS = {
  /** Iterations of one forloop or whileloop (squashed or not, parallel or not). */
  max_loop_iterations: 1_000_000,
  /** Modules of one flow, counted through loop bodies, branches, failure and preprocessor modules. */
  max_flow_modules: 20_000,
} as const;

const limit = z.number().int().min(1).max(1_000_000_000);

export const WorkspaceSettingsSchema = z
  .object({ max_loop_iterations: limit, max_flow_modules: limit })
  .strict();
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
