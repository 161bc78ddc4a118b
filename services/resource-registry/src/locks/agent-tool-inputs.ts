function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An agent tool that runs a script by path, with what it found wrong against the script's inputs. */
export interface ToolCheck {
  readonly node_id: string;
  readonly problems: string[];
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
  const properties = isRecord(schema) && isRecord(schema.properties) ? schema.properties : undefined;
  const checks: ToolCheck[] = [];
  for (const tool of tools) {
    if (!isRecord(tool) || !isRecord(tool.value)) continue;
    const { type, path, input_transforms: bound } = tool.value;
    if (type !== 'script' || path !== scriptPath) continue;
    const problems =
      properties && isRecord(bound)
        ? Object.keys(bound)
            .filter((name) => !(name in properties))
            .map((name) => `input '${name}' is bound by the tool but ${scriptPath} no longer takes it`)
        : [];
    checks.push({ node_id: typeof tool.id === 'string' ? tool.id : '', problems });
  }
  return checks;
}
