import { azureAuthHeaders } from '../shared/azure-auth.js';
import { createOpenAICompatibleAdapter } from '../openai-compatible/openai-compatible.adapter.js';

export const AZURE_FOUNDRY_DEFAULT_API_VERSION = '2024-05-01-preview';

/** Azure AI Foundry's model inference API: `<base>/chat/completions?api-version=...`, model in the body. */
export const azureFoundryAdapter = createOpenAICompatibleAdapter({
  kind: 'azure_foundry',
  vendor: 'Azure AI Foundry',
  telemetryName: 'azure.ai.inference',
  endpoint: (base, operation, _model, credentials) => {
    const path =
      operation === 'chat' ? 'chat/completions' : operation === 'embeddings' ? 'embeddings' : 'info';
    return `${base}/${path}?api-version=${encodeURIComponent(credentials.api_version ?? AZURE_FOUNDRY_DEFAULT_API_VERSION)}`;
  },
  authHeaders: azureAuthHeaders,
  maxTokensField: 'max_tokens',
  streamUsageOption: true,
  reasoningEffort: 'drop',
  jsonSchema: 'native',
});
