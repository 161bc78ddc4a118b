import { createOpenAICompatibleAdapter } from '../openai-compatible/openai-compatible.adapter.js';

/** Together AI puts usage on the last chunk that still has choices. */
export const togetheraiAdapter = createOpenAICompatibleAdapter({
  kind: 'togetherai',
  vendor: 'Together AI',
  telemetryName: 'together_ai',
  defaultBaseUrl: 'https://api.together.xyz/v1',
  maxTokensField: 'max_tokens',
  streamUsageOption: true,
  reasoningEffort: 'drop',
  jsonSchema: 'native',
});
