import { createOpenAICompatibleAdapter } from '../openai-compatible/openai-compatible.adapter.js';

/**
 * Any OpenAI-compatible server (vLLM, sglang, Ollama, LM Studio, a gateway): the resource's
 * `base_url` (with its version path, e.g. `http://host:8000/v1`), an optional key. It takes the
 * broadest settings: `max_tokens`, `reasoning_effort` passed as is.
 */
export const customaiAdapter = createOpenAICompatibleAdapter({
  kind: 'customai',
  vendor: 'Custom AI',
  telemetryName: 'custom',
  maxTokensField: 'max_tokens',
  streamUsageOption: true,
  reasoningEffort: 'reasoning_effort',
  jsonSchema: 'native',
});
