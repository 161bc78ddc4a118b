/** Gemini `generateContent` wire shapes the fake answers with. */

export type GeminiFakePart =
  | { text: string; thought?: boolean; thoughtSignature?: string }
  | { functionCall: { name: string; args: Record<string, unknown>; id?: string }; thoughtSignature?: string };

export type GeminiFakeFinishReason =
  | 'STOP'
  | 'MAX_TOKENS'
  | 'SAFETY'
  | 'RECITATION'
  | 'BLOCKLIST'
  | 'PROHIBITED_CONTENT'
  | 'SPII'
  | 'MALFORMED_FUNCTION_CALL'
  | 'OTHER';

export interface GeminiFakeUsage {
  promptTokenCount: number;
  candidatesTokenCount: number;
  thoughtsTokenCount?: number;
  cachedContentTokenCount?: number;
}

/** One model turn; rendered as one response or as SSE chunks, as the endpoint asks. */
export interface GeminiFakeTurn {
  parts: GeminiFakePart[];
  /** Default `STOP` (also when functions are called, as Gemini does). */
  finishReason?: GeminiFakeFinishReason;
  usage?: Partial<GeminiFakeUsage>;
  modelVersion?: string;
  /** Characters per streamed text chunk; default 8. */
  chunkSize?: number;
}

/** A prompt refused before any candidate (`promptFeedback.blockReason`). */
export interface GeminiFakeBlockedPrompt {
  blockedPrompt: { blockReason: 'SAFETY' | 'OTHER' | 'BLOCKLIST' | 'PROHIBITED_CONTENT' };
}

export interface GeminiFakeErrorReply {
  error: {
    httpStatus: number;
    /** `INVALID_ARGUMENT`, `RESOURCE_EXHAUSTED`, `UNAVAILABLE`, `NOT_FOUND`, `PERMISSION_DENIED`, ... */
    status: string;
    message: string;
    details?: Record<string, unknown>[];
    headers?: Record<string, string>;
  };
}

/** Sends the SSE headers and then nothing until the client hangs up. */
export interface GeminiFakeSilence {
  silentStream: true;
}

export interface GeminiFakeRawReply {
  raw: { status: number; headers?: Record<string, string>; body: string };
}

export type GeminiFakeReply =
  GeminiFakeTurn | GeminiFakeBlockedPrompt | GeminiFakeErrorReply | GeminiFakeSilence | GeminiFakeRawReply;
