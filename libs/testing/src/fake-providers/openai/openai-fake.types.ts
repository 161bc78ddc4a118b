/** OpenAI Chat Completions shapes the fake answers with (and the compatible vendors' variants). */

export interface OpenAIFakeToolCall {
  /** Default `call_<random>`. */
  id?: string;
  name: string;
  /** The arguments JSON text, streamed in fragments. */
  arguments: string;
}

export interface OpenAIFakeUsage {
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens?: number;
  reasoning_tokens?: number;
  /** DeepSeek's spelling of cached tokens. */
  prompt_cache_hit_tokens?: number;
}

/**
 * Where a stream carries usage: OpenAI's own extra chunk with `choices: []` (only when the request
 * set `stream_options.include_usage`), on the last chunk that still has choices (Together,
 * Mistral, and many compatible servers, whatever the request says), or under `x_groq`.
 */
export type OpenAIFakeUsageStyle = 'usage_chunk' | 'last_choice_chunk' | 'x_groq';

/** One assistant turn; rendered as `chat.completion` JSON or as SSE chunks, as the request asks. */
export interface OpenAIFakeTurn {
  text?: string;
  /** DeepSeek's `reasoning_content` (or `reasoning` with `reasoningField`). */
  reasoning?: string;
  reasoningField?: 'reasoning_content' | 'reasoning';
  toolCalls?: OpenAIFakeToolCall[];
  /** Default `tool_calls` when there are calls, else `stop`. */
  finishReason?: 'stop' | 'length' | 'tool_calls' | 'content_filter';
  /** Default `{prompt_tokens: 10, completion_tokens: 5}`; null: no usage at all. */
  usage?: OpenAIFakeUsage | null;
  usageStyle?: OpenAIFakeUsageStyle;
  /** Reported model; default the requested one with a date suffix. */
  model?: string;
  /** Characters per streamed delta; default 6. */
  deltaSize?: number;
  /** Azure: a first chunk with `choices: []` and `prompt_filter_results`. */
  azureFilterChunks?: boolean;
  /** Web pages the answer cites (a search model's `url_citation` annotations on the text). */
  citations?: Array<{ url: string; title: string }>;
  /** Responses API (`POST /responses`): the drawn picture, base64, as an `image_generation_call`. */
  image?: string;
  /** Waits this long before answering (a slow model: a test kills a process while it thinks). */
  delayMs?: number;
}

export interface OpenAIFakeErrorReply {
  error: {
    status: number;
    message: string;
    type?: string;
    code?: string | null;
    param?: string | null;
    headers?: Record<string, string>;
  };
}

/** Exactly these bytes (an HTML error page, a proxy's text). */
export interface OpenAIFakeRawReply {
  raw: { status: number; headers?: Record<string, string>; body: string };
}

/**
 * A stream that sends its first chunk and then nothing until the client hangs up; on `/responses`,
 * no answer at all until then.
 */
export interface OpenAIFakeSilentStream {
  silentStream: true;
}

/** A stream that breaks off after some chunks with `data: {"error": ...}`. */
export interface OpenAIFakeStreamThenFail {
  streamThenFail: {
    turn: OpenAIFakeTurn;
    afterChunks: number;
    error: { message: string; type?: string; code?: string };
  };
}

export type OpenAIFakeReply =
  | OpenAIFakeTurn
  | OpenAIFakeErrorReply
  | OpenAIFakeRawReply
  | OpenAIFakeSilentStream
  | OpenAIFakeStreamThenFail;
