import { createOpenAICompatibleAdapter } from '../openai-compatible/openai-compatible.adapter.js';

/** OpenRouter: app attribution headers, `reasoning: {effort}`, reasoning streamed as `reasoning`. */
export const openrouterAdapter = createOpenAICompatibleAdapter({
  kind: 'openrouter',
  vendor: 'OpenRouter',
  telemetryName: 'openrouter',
  defaultBaseUrl: 'https://openrouter.ai/api/v1',
  extraHeaders: () => ({ 'http-referer': 'https://github.com/flowmesh/flowmesh', 'x-title': 'flowmesh' }),
  maxTokensField: 'max_tokens',
  streamUsageOption: true,
  reasoningEffort: 'openrouter',
  jsonSchema: 'native',
  images: 'chat_modalities',
});
