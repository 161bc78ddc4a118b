import { z } from 'zod';
import { AgentToolSchema } from '../openflow/flow-module.schema.js';
import { AiAgentInputValueSchemas } from '../openflow/ai-agent-inputs.schema.js';
import { MemoryConfigSchema } from '../openflow/memory.schema.js';
import { openFlowRegistry } from '../openflow/openflow.registry.js';
import { AI_PROVIDER_KINDS, ProviderConfigSchema, type AIProviderKind } from '../openflow/provider.schema.js';

/**
 * The resource types every workspace has. Each is a zod schema here and a JSON Schema in the
 * registry (generated from it with `z.toJSONSchema`, never written by hand twice), so the
 * registry validates values with the JSON Schema while a consumer (the LLM gateway, the agent
 * runtime) can parse a resolved value with the zod schema it came from.
 *
 * A string field may hold a `$var:<path>` or `$res:<path>` reference instead of the value
 * (a key kept in a secret variable); the registry resolves it on `get_value_interpolated`.
 */

const url = (what: string) => z.string().min(1).describe(what);
const headers = z
  .record(z.string(), z.string())
  .describe('Extra HTTP headers sent with every request (authentication headers included)');

/** Fields every AI provider credential may carry (the gateway's resolved `ProviderCredentials`). */
const providerCommon = {
  base_url: url('Base URL of the API; the provider default when absent').optional(),
  custom_headers: headers.optional(),
};

const apiKey = z.string().min(1).describe('API key (usually a $var: reference to a secret variable)');

const keyedProvider = (extra: z.ZodRawShape = {}) =>
  z.strictObject({ api_key: apiKey, ...providerCommon, ...extra });

/** Credentials per provider kind: what each provider needs to be called. */
export const PROVIDER_CREDENTIAL_SCHEMAS = {
  openai: keyedProvider({
    organization_id: z.string().describe('OpenAI organization id').optional(),
    user: z.string().describe('End-user id sent with requests').optional(),
  }),
  azure_openai: z.strictObject({
    api_key: apiKey,
    base_url: url('Deployment base URL, e.g. https://<resource>.openai.azure.com/openai'),
    api_version: z.string().describe('Azure API version, e.g. 2024-10-21').optional(),
    custom_headers: headers.optional(),
  }),
  azure_foundry: z.strictObject({
    api_key: apiKey,
    base_url: url('Azure AI Foundry endpoint, e.g. https://<resource>.services.ai.azure.com/models'),
    api_version: z.string().describe('Azure API version').optional(),
    custom_headers: headers.optional(),
  }),
  anthropic: keyedProvider({
    platform: z
      .enum(['standard', 'google_vertex_ai'])
      .describe('standard (api.anthropic.com) or Google Vertex AI')
      .optional(),
    region: z.string().describe('Vertex AI region, when platform is google_vertex_ai').optional(),
    enable_1m_context: z.boolean().describe('Ask for the 1M-token context window beta').optional(),
  }),
  mistral: keyedProvider(),
  deepseek: keyedProvider(),
  googleai: keyedProvider(),
  groq: keyedProvider(),
  openrouter: keyedProvider(),
  togetherai: keyedProvider(),
  customai: z.strictObject({
    base_url: url('Base URL of an OpenAI-compatible API'),
    api_key: apiKey.optional(),
    custom_headers: headers.optional(),
  }),
  aws_bedrock: z.strictObject({
    region: z.string().min(1).describe('AWS region, e.g. us-east-1'),
    api_key: apiKey.describe('Bedrock API key (bearer); or use the AWS access key pair').optional(),
    aws_access_key_id: z.string().min(1).optional(),
    aws_secret_access_key: z.string().min(1).optional(),
    aws_session_token: z.string().min(1).optional(),
    base_url: url('Endpoint override (VPC endpoint)').optional(),
    custom_headers: headers.optional(),
  }),
  typesafe: keyedProvider(),
  cloudflare: keyedProvider({
    account_id: z.string().min(1).describe('Cloudflare account id').optional(),
  }),
} as const satisfies Record<AIProviderKind, z.ZodObject>;

export const McpResourceValueSchema = z.strictObject({
  url: url('URL of the MCP server'),
  transport: z
    .enum(['streamable_http', 'sse'])
    .describe('MCP transport; streamable_http when absent')
    .optional(),
  headers: headers.optional(),
});

/**
 * The brain of a reusable agent, with its tools. Brain keys hold plain values (what a step's
 * static input transforms would evaluate to), checked by the same schemas the OpenFlow model
 * uses for a step's inputs; `tools` is the spec's `AgentTool[]`.
 */
export const AiAgentResourceValueSchema = z.strictObject({
  provider: ProviderConfigSchema,
  system_prompt: AiAgentInputValueSchemas.system_prompt.optional(),
  temperature: AiAgentInputValueSchemas.temperature.optional(),
  max_completion_tokens: AiAgentInputValueSchemas.max_completion_tokens.optional(),
  output_type: AiAgentInputValueSchemas.output_type.optional(),
  output_schema: AiAgentInputValueSchemas.output_schema.optional(),
  memory: MemoryConfigSchema.optional(),
  streaming: AiAgentInputValueSchemas.streaming.optional(),
  max_iterations: AiAgentInputValueSchemas.max_iterations.optional(),
  tools: z.array(AgentToolSchema).optional(),
});

/** Keys of an `ai_agent` value that interpolation leaves as written (a tool's defaults resolve when it runs). */
export const AI_AGENT_UNRESOLVED_KEYS = ['tools'] as const;

export const S3ResourceValueSchema = z.strictObject({
  bucket: z.string().min(1),
  region: z.string().min(1),
  endPoint: z.string().describe('S3-compatible endpoint host (or URL)').optional(),
  port: z.int().min(1).max(65_535).optional(),
  useSSL: z.boolean().optional(),
  pathStyle: z.boolean().describe('Path-style addressing (MinIO, s3rver)').optional(),
  accessKey: z.string().optional(),
  secretKey: z.string().optional(),
});

export const PostgresqlResourceValueSchema = z.strictObject({
  host: z.string().min(1),
  port: z.int().min(1).max(65_535).optional(),
  user: z.string().min(1),
  password: z.string().optional(),
  dbname: z.string().min(1),
  sslmode: z.enum(['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full']).optional(),
  root_certificate_pem: z.string().optional(),
});

/** Anything JSON: state and cache values are written by the platform on every job. */
export const AnyJsonValueSchema = z.unknown();

export interface BuiltinResourceType {
  readonly name: string;
  readonly description: string;
  readonly value: z.ZodType;
}

const providerTitles: Record<AIProviderKind, string> = {
  openai: 'OpenAI',
  azure_openai: 'Azure OpenAI',
  azure_foundry: 'Azure AI Foundry',
  anthropic: 'Anthropic',
  mistral: 'Mistral',
  deepseek: 'DeepSeek',
  googleai: 'Google AI (Gemini)',
  groq: 'Groq',
  openrouter: 'OpenRouter',
  togetherai: 'Together AI',
  customai: 'a custom OpenAI-compatible API',
  aws_bedrock: 'AWS Bedrock',
  typesafe: 'TypeSafe (decision models)',
  cloudflare: 'Cloudflare (decision models)',
};

/** Every built-in type, in a stable order; the names are reserved in every workspace. */
export const BUILTIN_RESOURCE_TYPES: readonly BuiltinResourceType[] = [
  ...AI_PROVIDER_KINDS.map((kind) => ({
    name: kind,
    description: `Credentials for ${providerTitles[kind]}`,
    value: PROVIDER_CREDENTIAL_SCHEMAS[kind],
  })),
  {
    name: 'mcp',
    description: 'An MCP server: URL, transport and auth headers',
    value: McpResourceValueSchema,
  },
  {
    name: 'ai_agent',
    description: 'A reusable AI agent: its brain (provider, model, prompt, memory, ...) and its tools',
    value: AiAgentResourceValueSchema,
  },
  { name: 's3', description: 'An S3 (or S3-compatible) bucket', value: S3ResourceValueSchema },
  { name: 'postgresql', description: 'A PostgreSQL database', value: PostgresqlResourceValueSchema },
  {
    name: 'state',
    description: 'State a script keeps between runs (not versioned)',
    value: AnyJsonValueSchema,
  },
  {
    name: 'cache',
    description: 'A cached value written by the platform (not versioned)',
    value: AnyJsonValueSchema,
  },
];

export const BUILTIN_RESOURCE_TYPE_NAMES: ReadonlySet<string> = new Set(
  BUILTIN_RESOURCE_TYPES.map((t) => t.name),
);

export function findBuiltinResourceType(name: string): BuiltinResourceType | undefined {
  return BUILTIN_RESOURCE_TYPES.find((type) => type.name === name);
}

const jsonSchemas = new Map<string, Record<string, unknown>>();

/**
 * The JSON Schema (draft 2020-12) of a built-in type's value. OpenFlow parts keep their spec
 * names as `$defs` (AgentTool is recursive); descriptions given with `.describe()` are kept.
 */
export function builtinResourceTypeJsonSchema(type: BuiltinResourceType): Record<string, unknown> {
  const cached = jsonSchemas.get(type.name);
  if (cached) return cached;
  const schema = z.toJSONSchema(type.value, {
    target: 'draft-2020-12',
    metadata: openFlowRegistry,
    io: 'input',
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema }) => {
      const description = z.globalRegistry.get(zodSchema)?.description;
      if (description && jsonSchema.description === undefined) jsonSchema.description = description;
      // zod bounds every integer to the safe range; no field here states such a bound.
      if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
    },
  });
  jsonSchemas.set(type.name, schema);
  return schema;
}
