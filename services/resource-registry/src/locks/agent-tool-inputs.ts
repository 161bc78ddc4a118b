import { visitModules } from '@flowmesh/contracts';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An agent tool (or a flow step linking an agent) with what it found wrong against the scripts' inputs. */
export interface ToolCheck {
  readonly node_id: string;
  readonly problems: string[];
}

/** The argument names of a script's input schema, or undefined when it has none (not checked). */
function inputNames(schema: unknown): Record<string, unknown> | undefined {
  return isRecord(schema) && isRecord(schema.properties) ? schema.properties : undefined;
}

/** The names `bound` gives inputs that `properties` no longer has. */
function goneInputs(bound: unknown, properties: Record<string, unknown> | undefined): string[] {
  return properties && isRecord(bound) ? Object.keys(bound).filter((name) => !(name in properties)) : [];
}

/**
 * Checks the tools of an agent (`ai_agent` value `tools[]`) that run `scriptPath` against the
 * script's input schema (JSON Schema of `main`'s arguments): an input a tool binds
 * (`input_transforms`) that the script no longer takes is a problem. Inputs the tool leaves
 * unbound are the model's to fill from the schema, so a new argument is not one. A script
 * without a schema is not checked.
 */
export function checkScriptTools(agentValue: unknown, scriptPath: string, schema: unknown): ToolCheck[] {
  const tools = isRecord(agentValue) && Array.isArray(agentValue.tools) ? agentValue.tools : [];
  const properties = inputNames(schema);
  const checks: ToolCheck[] = [];
  for (const tool of tools) {
    if (!isRecord(tool) || !isRecord(tool.value)) continue;
    const { type, path, input_transforms: bound } = tool.value;
    if (type !== 'script' || path !== scriptPath) continue;
    const problems = goneInputs(bound, properties).map(
      (name) => `input '${name}' is bound by the tool but ${scriptPath} no longer takes it`,
    );
    checks.push({ node_id: typeof tool.id === 'string' ? tool.id : '', problems });
  }
  return checks;
}

/** The path of the agent an `aiagent` step links (`$res:` dropped), if it links one. */
export function linkedAgentOf(moduleValue: unknown): string | undefined {
  if (!isRecord(moduleValue) || moduleValue.type !== 'aiagent') return undefined;
  const agent = moduleValue.agent;
  return typeof agent === 'string' && agent !== '' ? agent.replace(/^\$res:/, '') : undefined;
}

/** The scripts (by path, hub scripts aside) that the tools of an `ai_agent` value run. */
export function toolScriptPaths(agentValue: unknown): string[] {
  const tools = isRecord(agentValue) && Array.isArray(agentValue.tools) ? agentValue.tools : [];
  const paths = new Set<string>();
  for (const tool of tools)
    if (isRecord(tool) && isRecord(tool.value) && tool.value.type === 'script') {
      const path = tool.value.path;
      if (typeof path === 'string' && !path.startsWith('hub/')) paths.add(path);
    }
  return [...paths];
}

/**
 * Checks the `tool_inputs` overrides of every `aiagent` step of a flow value that links an agent
 * (steps and nested tools at any depth), against the agent as it is now (`agents`, by path) and
 * the input schemas of the scripts its tools run (`schemas`, by path): an override for a tool the
 * agent no longer has, or of an input its script no longer takes, is a problem. Overrides of a
 * tool that is not a script by path (inline code, a flow) are the agent's own to check.
 */
export function checkFlowToolInputs(
  flowValue: unknown,
  agents: ReadonlyMap<string, unknown>,
  schemas: ReadonlyMap<string, unknown>,
): ToolCheck[] {
  const checks: ToolCheck[] = [];
  visitModules(flowValue, [], ({ module }) => {
    const agentPath = linkedAgentOf(module.value);
    if (agentPath === undefined || typeof module.id !== 'string') return;
    const overrides =
      isRecord(module.value) && isRecord(module.value.tool_inputs) ? module.value.tool_inputs : {};
    const agent = agents.get(agentPath);
    const tools = isRecord(agent) && Array.isArray(agent.tools) ? agent.tools.filter(isRecord) : [];
    const problems: string[] = [];
    for (const [toolId, bound] of Object.entries(overrides)) {
      const tool = tools.find((t) => t.id === toolId);
      if (!tool) {
        problems.push(`tool_inputs override tool '${toolId}', which ${agentPath} no longer has`);
        continue;
      }
      const value = isRecord(tool.value) ? tool.value : {};
      if (value.type !== 'script' || typeof value.path !== 'string') continue;
      const scriptPath = value.path;
      for (const name of goneInputs(bound, inputNames(schemas.get(scriptPath))))
        problems.push(
          `tool_inputs override input '${name}' of tool '${toolId}' but ${scriptPath} no longer takes it`,
        );
    }
    checks.push({ node_id: module.id, problems });
  });
  return checks;
}
