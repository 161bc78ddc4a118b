import type { ChatCall } from '../provider-adapter.js';

/**
 * Providers without native JSON-schema output (Anthropic, Bedrock) get the schema as one tool the
 * model is forced to call; its input is the answer. The parsers turn that call back into text, so
 * the caller sees the JSON as the answer either way.
 */
export interface StructuredOutputTool {
  readonly name: string;
  readonly description: string;
  readonly schema: Readonly<Record<string, unknown>>;
}

/** The forced tool for a `json_schema` response format, or undefined when the call has none. */
export function structuredOutputTool(
  call: Pick<ChatCall, 'responseFormat' | 'tools'>,
): StructuredOutputTool | undefined {
  const format = call.responseFormat;
  if (format?.type !== 'json_schema') return undefined;
  const taken = new Set((call.tools ?? []).map((tool) => tool.name));
  // A caller's own tool may already be called like the format; the forced tool steps aside.
  let name = format.name;
  while (taken.has(name)) name = `${name.slice(0, 60)}_out`;
  return {
    name,
    description:
      format.description ??
      'Answer by calling this tool: its input is the final answer, valid against the schema.',
    schema: format.schema,
  };
}
