import { linkedAgentPaths, MAX_PINNED_AGENTS, MeshError, type PinnedAgents } from '@flowmesh/contracts';
import type { RegistryGateway } from '../registry/registry.gateway.js';

/**
 * `pin_agents`: reads every `ai_agent` a flow value links, and those the agents link as nested
 * agent tools in turn (each once, cycles included), as `token`'s identity, in a preview of drafts
 * the token's user's draft first. An agent that cannot be read refuses the run, naming it: a
 * pinned run never starts with an agent it could not pin.
 */
export async function pinAgents(
  registry: RegistryGateway,
  token: string,
  workspace: string,
  flowValue: unknown,
  drafts: boolean,
): Promise<PinnedAgents> {
  const pinned: PinnedAgents = {};
  let pending = linkedAgentPaths(flowValue);
  while (pending.length > 0) {
    const next: string[] = [];
    for (const path of pending) {
      if (path in pinned) continue;
      if (Object.keys(pinned).length >= MAX_PINNED_AGENTS)
        throw new MeshError(
          'VALIDATION_FAILED',
          `pin_agents: the run links more than ${MAX_PINNED_AGENTS} agents`,
        );
      const value = await read(registry, token, workspace, path, drafts);
      pinned[path] = value;
      const tools = (value as { tools?: unknown } | null)?.tools;
      next.push(...linkedAgentPaths({ modules: Array.isArray(tools) ? tools : [] }));
    }
    pending = next;
  }
  return pinned;
}

async function read(
  registry: RegistryGateway,
  token: string,
  workspace: string,
  path: string,
  drafts: boolean,
): Promise<unknown> {
  try {
    return (
      (drafts ? await registry.getResourceDraftValue(token, workspace, path) : undefined) ??
      (await registry.getResourceValue(token, workspace, path))
    );
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const kept = error instanceof MeshError && ['NOT_FOUND', 'PERMISSION_DENIED'].includes(error.code);
    throw new MeshError(
      kept ? error.code : 'VALIDATION_FAILED',
      `pin_agents: the agent ${path} could not be read (${reason})`,
    );
  }
}
