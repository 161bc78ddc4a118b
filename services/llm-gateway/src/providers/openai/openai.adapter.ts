import { createOpenAICompatibleAdapter } from '../openai-compatible/openai-compatible.adapter.js';

export const openaiAdapter = createOpenAICompatibleAdapter({
  kind: 'openai',
  vendor: 'OpenAI',
  telemetryName: 'openai',
  defaultBaseUrl: 'https://api.openai.com/v1',
  extraHeaders: (credentials): Record<string, string> =>
    credentials.organization_id ? { 'openai-organization': credentials.organization_id } : {},
  maxTokensField: 'max_completion_tokens',
  streamUsageOption: true,
  reasoningEffort: 'reasoning_effort',
  jsonSchema: 'native',
  webSearch: true,
  images: 'responses',
  finishBody: (body, _call, credentials) => (credentials.user ? { ...body, user: credentials.user } : body),
});
