import { linkedAgentPaths, MAX_PINNED_AGENTS, ResourceSchema } from '@flowmesh/contracts';
import { listVersions } from '../sync/list-versions.js';
import type { RegistryHttp } from '../sync/registry-connection.js';

/**
 * Every `ai_agent` a flow links (steps and agent tools), and those they link as nested agent
 * tools in turn, each with its current version number (the resource's history, newest first).
 * Read right before a run is enqueued with `pin_agents` and again right after: the run is
 * attributable to them when both reads agree.
 */
export async function linkedAgentVersions(
  http: RegistryHttp,
  flowValue: unknown,
): Promise<Record<string, number | null>> {
  const versions: Record<string, number | null> = {};
  let pending = linkedAgentPaths(flowValue);
  while (pending.length > 0 && Object.keys(versions).length < MAX_PINNED_AGENTS) {
    const next: string[] = [];
    for (const path of pending) {
      if (path in versions) continue;
      const [history, resource] = await Promise.all([
        listVersions(http, path),
        http.get(`resources/get/${path}`, ResourceSchema),
      ]);
      versions[path] = history[0]?.version ?? null;
      const tools = isObject(resource.value) ? resource.value.tools : undefined;
      next.push(...linkedAgentPaths({ modules: Array.isArray(tools) ? tools : [] }));
    }
    pending = next;
  }
  return versions;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** `f/ai/triage@3, f/ai/writer@12` */
export function formatVersions(versions: Readonly<Record<string, number | null>>): string {
  const entries = Object.entries(versions);
  if (entries.length === 0) return '-';
  return entries.map(([path, version]) => `${path}@${version ?? '?'}`).join(', ');
}
