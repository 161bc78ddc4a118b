/**
 * OpenTelemetry GenAI semantic-convention keys the mesh emits (the gateway's inference spans,
 * agent-runtime's agent and tool spans), in one file (the conventions
 * are "Development" upstream; `@opentelemetry/semantic-conventions` keeps them under
 * `/incubating`, which its authors advise copying rather than importing at run time).
 * Reference: open-telemetry/semantic-conventions-genai, `gen-ai-spans.md`, `gen-ai-metrics.md`.
 */
export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const ATTR_GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name';
export const ATTR_GEN_AI_REQUEST_MODEL = 'gen_ai.request.model';
export const ATTR_GEN_AI_REQUEST_STREAM = 'gen_ai.request.stream';
export const ATTR_GEN_AI_REQUEST_MAX_TOKENS = 'gen_ai.request.max_tokens';
export const ATTR_GEN_AI_REQUEST_TEMPERATURE = 'gen_ai.request.temperature';
export const ATTR_GEN_AI_REQUEST_TOP_P = 'gen_ai.request.top_p';
export const ATTR_GEN_AI_OUTPUT_TYPE = 'gen_ai.output.type';
export const ATTR_GEN_AI_CONVERSATION_ID = 'gen_ai.conversation.id';
export const ATTR_GEN_AI_RESPONSE_ID = 'gen_ai.response.id';
export const ATTR_GEN_AI_RESPONSE_MODEL = 'gen_ai.response.model';
export const ATTR_GEN_AI_RESPONSE_FINISH_REASONS = 'gen_ai.response.finish_reasons';
export const ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK = 'gen_ai.response.time_to_first_chunk';
/** Includes cached tokens (Anthropic's own `input_tokens` does not: adapters sum them in). */
export const ATTR_GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
export const ATTR_GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
export const ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS = 'gen_ai.usage.cache_read.input_tokens';
export const ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS = 'gen_ai.usage.cache_creation.input_tokens';
export const ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS = 'gen_ai.usage.reasoning.output_tokens';
export const ATTR_GEN_AI_TOKEN_TYPE = 'gen_ai.token.type';
export const ATTR_GEN_AI_EMBEDDINGS_DIMENSION_COUNT = 'gen_ai.embeddings.dimension.count';
export const ATTR_GEN_AI_AGENT_NAME = 'gen_ai.agent.name';
export const ATTR_GEN_AI_AGENT_ID = 'gen_ai.agent.id';
export const ATTR_GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
export const ATTR_GEN_AI_TOOL_CALL_ID = 'gen_ai.tool.call.id';
/** `function` (run by the agent's runtime), `extension` (run by an outside service: MCP), `datastore`. */
export const ATTR_GEN_AI_TOOL_TYPE = 'gen_ai.tool.type';

/** flowmesh's own: which provider resource and workspace a call used (a path, never a value). */
export const ATTR_FLOWMESH_WORKSPACE = 'flowmesh.workspace';
export const ATTR_FLOWMESH_PROVIDER_RESOURCE = 'flowmesh.gen_ai.provider_resource';

export const GEN_AI_OPERATION = {
  chat: 'chat',
  /** FIM requests. */
  textCompletion: 'text_completion',
  embeddings: 'embeddings',
  /** A decision model's answers to typed questions (`aidecision`; not in the conventions yet). */
  decide: 'decide',
  invokeAgent: 'invoke_agent',
  executeTool: 'execute_tool',
} as const;
export type GenAiOperation = (typeof GEN_AI_OPERATION)[keyof typeof GEN_AI_OPERATION];

export const GEN_AI_TOKEN_TYPE = { input: 'input', output: 'output' } as const;

export const METRIC_GEN_AI_CLIENT_TOKEN_USAGE = 'gen_ai.client.token.usage';
export const METRIC_GEN_AI_CLIENT_OPERATION_DURATION = 'gen_ai.client.operation.duration';
export const METRIC_GEN_AI_CLIENT_TIME_TO_FIRST_CHUNK = 'gen_ai.client.operation.time_to_first_chunk';
export const METRIC_GEN_AI_INVOKE_AGENT_DURATION = 'gen_ai.invoke_agent.duration';
export const METRIC_GEN_AI_EXECUTE_TOOL_DURATION = 'gen_ai.execute_tool.duration';

/** Bucket boundaries the conventions prescribe. */
export const TOKEN_USAGE_BUCKETS = [
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
];
export const DURATION_BUCKETS_S = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];

/**
 * `gen_ai.provider.name` of an OpenFlow provider kind, as the conventions name it (custom values
 * where they have none). The gateway knows more (Anthropic on Vertex is `gcp.vertex_ai`); this is
 * for spans outside it, such as an agent's.
 */
export function genAiProviderName(kind: string): string {
  return GEN_AI_PROVIDER_NAMES[kind] ?? kind;
}

const GEN_AI_PROVIDER_NAMES: Readonly<Record<string, string>> = {
  openai: 'openai',
  azure_openai: 'azure.ai.openai',
  azure_foundry: 'azure.ai.inference',
  anthropic: 'anthropic',
  mistral: 'mistral_ai',
  deepseek: 'deepseek',
  googleai: 'gcp.gemini',
  groq: 'groq',
  aws_bedrock: 'aws.bedrock',
  openrouter: 'openrouter',
  togetherai: 'together_ai',
  customai: 'custom',
};
