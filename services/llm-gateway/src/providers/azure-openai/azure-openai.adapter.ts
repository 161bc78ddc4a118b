import { azureAuthHeaders } from '../shared/azure-auth.js';
import type { ProviderCredentials } from '../provider-credentials.js';
import { createOpenAICompatibleAdapter } from '../openai-compatible/openai-compatible.adapter.js';
import type { OpenAIOperation } from '../openai-compatible/openai-compatible.profile.js';

/** The GA api-version used when the resource names none. */
export const AZURE_OPENAI_DEFAULT_API_VERSION = '2024-10-21';

/**
 * Azure OpenAI, both URL shapes: the classic deployment URL
 * (`<base>/deployments/<deployment>/chat/completions?api-version=...`, the model is the
 * deployment), or the v1 API when the base ends in `/openai/v1` (no api-version, deployment in
 * the body). A base without `/openai` gets it.
 */
export function azureOpenAIEndpoint(
  base: string,
  operation: OpenAIOperation,
  model: string,
  credentials: ProviderCredentials,
): string {
  if (/\/openai\/v1$/.test(base)) return `${base}/${operation === 'chat' ? 'chat/completions' : operation}`;
  const root = /\/openai$/.test(base) ? base : `${base}/openai`;
  const version = `api-version=${encodeURIComponent(credentials.api_version ?? AZURE_OPENAI_DEFAULT_API_VERSION)}`;
  if (operation === 'models') return `${root}/models?${version}`;
  const path = operation === 'chat' ? 'chat/completions' : 'embeddings';
  return `${root}/deployments/${encodeURIComponent(model)}/${path}?${version}`;
}

export const azureOpenAIAdapter = createOpenAICompatibleAdapter({
  kind: 'azure_openai',
  vendor: 'Azure OpenAI',
  telemetryName: 'azure.ai.openai',
  endpoint: azureOpenAIEndpoint,
  authHeaders: azureAuthHeaders,
  maxTokensField: 'max_completion_tokens',
  streamUsageOption: true,
  reasoningEffort: 'reasoning_effort',
  jsonSchema: 'native',
});
