/**
 * The OpenAI Chat Completions wire format, as far as the gateway reads and writes it. Fields
 * OpenAI-compatible vendors add are marked with the vendor.
 */

export type OpenAIContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string; detail?: 'auto' | 'low' | 'high' } }
  | { type: 'file'; file: { filename?: string; file_data: string } };

export interface OpenAIToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type OpenAIMessage =
  | { role: 'system' | 'developer'; content: string }
  | { role: 'user'; content: string | OpenAIContentPart[] }
  | { role: 'assistant'; content: string | null; tool_calls?: OpenAIToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface OpenAIToolDefinition {
  type: 'function';
  function: { name: string; description?: string; parameters: Record<string, unknown>; strict?: boolean };
}

export type OpenAIToolChoice =
  'auto' | 'none' | 'required' | 'any' | { type: 'function'; function: { name: string } };

export type OpenAIResponseFormat =
  | { type: 'json_object' }
  | {
      type: 'json_schema';
      json_schema: { name: string; description?: string; schema: Record<string, unknown>; strict?: boolean };
    };

export interface OpenAIChatBody {
  model: string;
  messages: OpenAIMessage[];
  stream?: boolean;
  stream_options?: { include_usage: boolean };
  tools?: OpenAIToolDefinition[];
  tool_choice?: OpenAIToolChoice;
  parallel_tool_calls?: boolean;
  response_format?: OpenAIResponseFormat;
  temperature?: number;
  top_p?: number;
  stop?: string[];
  max_tokens?: number;
  max_completion_tokens?: number;
  reasoning_effort?: string;
  /** OpenRouter */
  reasoning?: { effort: string };
  user?: string;
  /** OpenAI's search models search the web before answering. */
  web_search_options?: Record<string, never>;
}

/** What an answer cites; `url_citation` comes from a web search. */
export interface OpenAIAnnotation {
  type?: string;
}

export interface OpenAIUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number } | null;
  completion_tokens_details?: { reasoning_tokens?: number } | null;
  /** DeepSeek */
  prompt_cache_hit_tokens?: number;
  prompt_cache_miss_tokens?: number;
}

export interface OpenAIResponseMessage {
  role?: string;
  content?: string | null;
  refusal?: string | null;
  tool_calls?: Array<{ id?: string; type?: string; function?: { name?: string; arguments?: string } }> | null;
  /** DeepSeek */
  reasoning_content?: string | null;
  /** OpenRouter, Groq */
  reasoning?: string | null;
  annotations?: OpenAIAnnotation[] | null;
}

export interface OpenAIChatCompletion {
  id?: string;
  object?: string;
  model?: string;
  choices?: Array<{ index?: number; message?: OpenAIResponseMessage; finish_reason?: string | null }>;
  usage?: OpenAIUsage | null;
}

export interface OpenAIChunkToolCall {
  index?: number;
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string };
}

export interface OpenAIChatChunk {
  id?: string;
  object?: string;
  model?: string;
  choices?: Array<{
    index?: number;
    delta?: {
      role?: string;
      content?: string | null;
      refusal?: string | null;
      tool_calls?: OpenAIChunkToolCall[] | null;
      reasoning_content?: string | null;
      reasoning?: string | null;
      annotations?: OpenAIAnnotation[] | null;
    };
    finish_reason?: string | null;
  }>;
  usage?: OpenAIUsage | null;
  /** Groq puts usage here on the last chunk. */
  x_groq?: { usage?: OpenAIUsage | null };
  /** A mid-stream error. */
  error?: unknown;
}

export interface OpenAIErrorBody {
  error?: { message?: string; type?: string; code?: string | number | null; param?: string | null } | string;
  /** Mistral, vLLM: `{"object":"error","message":...}` */
  message?: string;
  type?: string;
  code?: string | number | null;
  detail?: unknown;
}

export interface OpenAIEmbeddingsBody {
  model: string;
  input: string[];
  encoding_format: 'float';
  dimensions?: number;
}

export interface OpenAIEmbeddingsResponse {
  data?: Array<{ index?: number; embedding?: number[] | string }>;
  model?: string;
  usage?: { prompt_tokens?: number; total_tokens?: number };
}

export interface OpenAIModelsResponse {
  data?: Array<{ id?: string; owned_by?: string }>;
}
