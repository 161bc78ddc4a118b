import { createOpenAICompatibleAdapter } from '../openai-compatible/openai-compatible.adapter.js';

/** Groq: usage also arrives under `x_groq.usage`; reasoning models stream `reasoning`. */
export const groqAdapter = createOpenAICompatibleAdapter({
  kind: 'groq',
  vendor: 'Groq',
  telemetryName: 'groq',
  defaultBaseUrl: 'https://api.groq.com/openai/v1',
  maxTokensField: 'max_completion_tokens',
  streamUsageOption: true,
  reasoningEffort: 'reasoning_effort',
  jsonSchema: 'native',
});
