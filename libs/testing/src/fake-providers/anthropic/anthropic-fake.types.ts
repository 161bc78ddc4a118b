/** Anthropic Messages wire shapes the fake answers with (the subset a gateway must understand). */

export type AnthropicFakeContentBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

export type AnthropicFakeStopReason =
  | 'end_turn'
  | 'max_tokens'
  | 'stop_sequence'
  | 'tool_use'
  | 'pause_turn'
  | 'refusal'
  | 'model_context_window_exceeded';

export interface AnthropicFakeUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}

/** One assistant turn; rendered as a JSON message or as SSE events, as the request asks. */
export interface AnthropicFakeTurn {
  content: AnthropicFakeContentBlock[];
  stop_reason?: AnthropicFakeStopReason;
  usage?: Partial<AnthropicFakeUsage>;
  /** Reported model; defaults to the requested one. */
  model?: string;
  id?: string;
  /** Characters per streamed delta (text, thinking, tool input JSON); default 8. */
  deltaSize?: number;
}

export interface AnthropicFakeErrorReply {
  error: {
    status: number;
    /** `invalid_request_error`, `authentication_error`, `rate_limit_error`, `overloaded_error`, ... */
    type: string;
    message: string;
    headers?: Record<string, string>;
  };
}

/** A stream that starts well and then fails with an in-stream `error` event. */
export interface AnthropicFakeStreamFailure {
  streamThenFail: {
    turn: AnthropicFakeTurn;
    /** How many SSE events go out before the `error` event. */
    afterEvents: number;
    error: { type: string; message: string };
  };
}

/** Sends the headers and `message_start`, then nothing until the client hangs up. */
export interface AnthropicFakeSilence {
  silentStream: true;
}

export interface AnthropicFakeRawReply {
  raw: { status: number; headers?: Record<string, string>; body: string };
}

export type AnthropicFakeReply =
  | AnthropicFakeTurn
  | AnthropicFakeErrorReply
  | AnthropicFakeStreamFailure
  | AnthropicFakeSilence
  | AnthropicFakeRawReply;
