import { createOpenAICompatibleAdapter } from '../openai-compatible/openai-compatible.adapter.js';
import { mistralToolCallId } from './mistral-tool-call-id.js';

/** Mistral reports usage on its last chunk on its own and rejects unknown fields such as `stream_options`. */
export const mistralAdapter = createOpenAICompatibleAdapter({
  kind: 'mistral',
  vendor: 'Mistral',
  telemetryName: 'mistral_ai',
  defaultBaseUrl: 'https://api.mistral.ai/v1',
  maxTokensField: 'max_tokens',
  streamUsageOption: false,
  reasoningEffort: 'drop',
  jsonSchema: 'native',
  toolCallId: mistralToolCallId,
});
