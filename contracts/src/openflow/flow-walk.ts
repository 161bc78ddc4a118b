/** Where a module sits: a step of the flow, one of the two special modules, or an agent tool. */
export type ModuleRole = 'step' | 'failure' | 'preprocessor' | 'tool';

export interface VisitedModule {
  /** The module as written: `{id, value, ...}` (for a tool, `{id, summary, value}`); not yet validated. */
  readonly module: Record<string, unknown>;
  readonly path: readonly PropertyKey[];
  readonly role: ModuleRole;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function eachModule(
  list: unknown,
  path: readonly PropertyKey[],
  role: ModuleRole,
  visit: (visited: VisitedModule) => void,
): void {
  if (!Array.isArray(list)) return;
  list.forEach((module, index) => visitModule(module, [...path, index], role, visit));
}

function visitModule(
  module: unknown,
  path: readonly PropertyKey[],
  role: ModuleRole,
  visit: (visited: VisitedModule) => void,
): void {
  if (!isRecord(module)) return;
  visit({ module, path, role });
  const value = module.value;
  if (!isRecord(value)) return;
  const valuePath = [...path, 'value'];
  eachModule(value.modules, [...valuePath, 'modules'], 'step', visit);
  if (Array.isArray(value.branches)) {
    value.branches.forEach((branch, index) => {
      if (isRecord(branch))
        eachModule(branch.modules, [...valuePath, 'branches', index, 'modules'], 'step', visit);
    });
  }
  eachModule(value.default, [...valuePath, 'default'], 'step', visit);
  eachModule(value.tools, [...valuePath, 'tools'], 'tool', visit);
}

/**
 * Visits every module of a flow value, depth first in document order: the steps (and the
 * modules inside loops, branches and agent tools), then the failure and preprocessor modules.
 * Tolerates any input, so the semantic checks can run on a flow the schema rejected.
 */
export function visitModules(
  flowValue: unknown,
  basePath: readonly PropertyKey[],
  visit: (visited: VisitedModule) => void,
): void {
  if (!isRecord(flowValue)) return;
  eachModule(flowValue.modules, [...basePath, 'modules'], 'step', visit);
  visitModule(flowValue.failure_module, [...basePath, 'failure_module'], 'failure', visit);
  visitModule(flowValue.preprocessor_module, [...basePath, 'preprocessor_module'], 'preprocessor', visit);
}

/**
 * The `ai_agent` resources the `aiagent` modules of a flow value link (`agent`), steps and agent
 * tools at any depth, in document order without repeats. An agent's own tools are in its
 * resource: pass `{ modules: agent.tools }` to find the agents it links in turn.
 */
export function linkedAgentPaths(flowValue: unknown): string[] {
  const paths = new Set<string>();
  visitModules(flowValue, [], ({ module }) => {
    const value = module.value;
    if (isRecord(value) && value.type === 'aiagent' && typeof value.agent === 'string' && value.agent !== '')
      paths.add(value.agent);
  });
  return [...paths];
}
