import {
  createRegistryDraftsClient,
  createRegistryItemsClient,
  MeshError,
  type AgentStepStartRequest,
} from '@flowmesh/contracts';
import type { MeshClient } from '@flowmesh/messaging';

/**
 * The `ai_agent` a step links: the definition the run pinned when it started (`pin_agents`), else
 * read now (resolution is live) as the step's identity: in a preview of agent drafts
 * (`agent_drafts`), the run's user's draft of it when there is one, else the deployed resource.
 * Undefined for a step that links none.
 */
export async function linkedAgent(
  mesh: MeshClient,
  request: AgentStepStartRequest,
  log: (message: string) => void,
): Promise<unknown> {
  const path = typeof request.module.agent === 'string' ? request.module.agent : undefined;
  if (!path) return undefined;
  if (request.pinned_agents && path in request.pinned_agents) {
    log(`the agent ${path} runs as pinned when the run started`);
    return request.pinned_agents[path];
  }
  const caller = { actor: { token: request.job_token }, workspace: request.workspace };
  if (request.agent_drafts) {
    try {
      const draft = await createRegistryDraftsClient(mesh).get({
        ...caller,
        draft: { item_kind: 'resource', path },
      });
      log(`the agent ${path} runs as drafted (draft of ${draft.username}, saved ${draft.updated_at})`);
      return (draft.value as { value?: unknown }).value;
    } catch (error) {
      if (!(error instanceof MeshError && error.code === 'NOT_FOUND')) throw error;
      log(`the agent ${path} has no draft of the run's user: it runs as deployed`);
    }
  }
  return (await createRegistryItemsClient(mesh).getResourceValue({ ...caller, path })).value;
}
