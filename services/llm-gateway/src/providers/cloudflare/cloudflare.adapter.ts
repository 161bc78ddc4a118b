import { createOpenAICompatibleAdapter } from '../openai-compatible/openai-compatible.adapter.js';

/** Workers AI's OpenAI-compatible endpoint of the resource's account. */
export const cloudflareAdapter = createOpenAICompatibleAdapter({
  kind: 'cloudflare',
  vendor: 'Cloudflare Workers AI',
  telemetryName: 'cloudflare',
  defaultBaseUrl: (credentials) =>
    credentials.account_id
      ? `https://api.cloudflare.com/client/v4/accounts/${credentials.account_id}/ai/v1`
      : undefined,
  maxTokensField: 'max_tokens',
  streamUsageOption: true,
  reasoningEffort: 'drop',
  jsonSchema: 'native',
});
