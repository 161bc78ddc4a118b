import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolItem } from './mcp-tool-names.js';

/** A script or flow as its tool shows it: where it lives, what it says of itself, its inputs. */
export interface ToolSource extends ToolItem {
  readonly summary: string;
  readonly description: string | null;
  /** The item's JSON Schema of its inputs (Windmill's: `properties`, `required`, `order`). */
  readonly schema: Record<string, unknown> | null;
}

/** What MCP's `inputSchema` needs: an object schema. */
export type ToolInputSchema = Tool['inputSchema'];

const KEPT = ['properties', 'required', 'additionalProperties', '$defs', 'definitions'] as const;

/**
 * The tool's input schema from the item's: its properties and required ones (and shared
 * definitions), always `type: object`; an item without one takes any arguments. Windmill's
 * editor keys (`order`, `$schema`) are left out.
 */
export function inputSchemaOf(schema: Record<string, unknown> | null): ToolInputSchema {
  const input: Record<string, unknown> = { type: 'object', properties: {} };
  if (!schema) return input as ToolInputSchema;
  for (const key of KEPT) if (schema[key] !== undefined) input[key] = schema[key];
  if (typeof input.properties !== 'object' || input.properties === null || Array.isArray(input.properties))
    input.properties = {};
  if (!Array.isArray(input.required)) delete input.required;
  return input as ToolInputSchema;
}

/** The description an agent reads: the summary, the description, and what the tool runs. */
export function descriptionOf(source: ToolSource): string {
  const what = `Runs the ${source.kind} ${source.path} in flowmesh and answers with its result.`;
  return [source.summary.trim(), source.description?.trim() ?? '', what]
    .filter((part) => part !== '')
    .join('\n\n');
}

/** The MCP tool a script or flow is, under `name`. */
export function toolOf(name: string, source: ToolSource): Tool {
  return {
    name,
    ...(source.summary.trim() === '' ? {} : { title: source.summary.trim() }),
    description: descriptionOf(source),
    inputSchema: inputSchemaOf(source.schema),
    // A call may wait for its run, or be a task followed by its handle (the run's job).
    execution: { taskSupport: 'optional' },
    // As Windmill marks its tools: a run may change the world and is not idempotent.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  };
}
