import type { AIProviderKind } from '@flowmesh/contracts';
import type { ChatCall } from '../provider-adapter.js';
import type { ProviderCredentials } from '../provider-credentials.js';
import type { OpenAIImageStyle } from './openai-image.codec.js';
import type { OpenAIChatBody } from './openai-wire.types.js';

export type OpenAIOperation = 'chat' | 'embeddings' | 'models' | 'responses';

/**
 * What sets one OpenAI-compatible vendor apart from OpenAI: where it lives, how it authenticates,
 * and its quirks. A new vendor is a profile of a few lines (see `providers/<vendor>/`).
 */
export interface OpenAICompatibleProfile {
  readonly kind: AIProviderKind;
  /** Name used in error messages (`Mistral answered 400: ...`). */
  readonly vendor: string;
  /** `gen_ai.provider.name`. */
  readonly telemetryName: string;
  /** Used when the resource has no `base_url`; absent: `base_url` is required. */
  readonly defaultBaseUrl?: string | ((credentials: ProviderCredentials) => string | undefined);
  /** The URL of an operation; default `<base>/chat/completions`, `<base>/embeddings`, `<base>/models`. */
  readonly endpoint?: (
    base: string,
    operation: OpenAIOperation,
    model: string,
    credentials: ProviderCredentials,
  ) => string;
  /** Authentication headers; default `Authorization: Bearer <api_key>` when there is a key. */
  readonly authHeaders?: (credentials: ProviderCredentials) => Record<string, string>;
  /** Headers the vendor wants besides authentication (OpenRouter's attribution, OpenAI's organization). */
  readonly extraHeaders?: (credentials: ProviderCredentials) => Record<string, string>;
  /** `max_completion_tokens` (OpenAI) or the older `max_tokens` most compatible servers take. */
  readonly maxTokensField: 'max_tokens' | 'max_completion_tokens';
  /** Sends `stream_options.include_usage` (the usage chunk); vendors that reject it report usage anyway. */
  readonly streamUsageOption: boolean;
  /** How `reasoning_effort` is sent: as is, as OpenRouter's `reasoning.effort`, or not at all. */
  readonly reasoningEffort: 'reasoning_effort' | 'openrouter' | 'drop';
  /** `json_schema` natively, or `json_object` with the schema in the system prompt (DeepSeek). */
  readonly jsonSchema: 'native' | 'json_object';
  /** Web search (`webSearch`) as `web_search_options` (OpenAI's search models); absent: none. */
  readonly webSearch?: boolean;
  /** Image generation (`output_type: image`), and how the vendor does it; absent: none. */
  readonly images?: OpenAIImageStyle;
  /** Rewrites replayed tool-call ids the vendor would reject (Mistral wants 9 alphanumerics). */
  readonly toolCallId?: (id: string) => string;
  /** Last touches to the body (OpenAI's `user`). */
  readonly finishBody?: (
    body: OpenAIChatBody,
    call: ChatCall,
    credentials: ProviderCredentials,
  ) => OpenAIChatBody;
}
