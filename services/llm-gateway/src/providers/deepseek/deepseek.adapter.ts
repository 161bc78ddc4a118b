import { createOpenAICompatibleAdapter } from '../openai-compatible/openai-compatible.adapter.js';

/**
 * DeepSeek streams `reasoning_content` (deepseek-reasoner), rejects it when replayed (the family
 * never replays reasoning), and has `json_object` but no `json_schema`: the schema goes in the
 * system prompt.
 */
export const deepseekAdapter = createOpenAICompatibleAdapter({
  kind: 'deepseek',
  vendor: 'DeepSeek',
  telemetryName: 'deepseek',
  defaultBaseUrl: 'https://api.deepseek.com',
  maxTokensField: 'max_tokens',
  streamUsageOption: true,
  reasoningEffort: 'drop',
  jsonSchema: 'json_object',
});
