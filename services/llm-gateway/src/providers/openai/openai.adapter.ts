import { createOpenAICompatibleAdapter } from '../openai-compatible/openai-compatible.adapter.js';
import type { HttpProviderAdapter } from '../provider-adapter.js';
import { openAIDecisions } from './openai-decisions.codec.js';

const OPENAI_API = 'https://api.openai.com/v1';

const chatAdapter = createOpenAICompatibleAdapter({
  kind: 'openai',
  vendor: 'OpenAI',
  telemetryName: 'openai',
  defaultBaseUrl: OPENAI_API,
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

/** OpenAI: chat, embeddings, images, and decision models through its Decisions API. */
export const openaiAdapter: HttpProviderAdapter = {
  ...chatAdapter,
  decisions: openAIDecisions((credentials) => credentials.base_url ?? OPENAI_API),
};
