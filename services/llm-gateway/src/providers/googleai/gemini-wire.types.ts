/** Gemini `generateContent` wire shapes (what the gateway sends and reads; unknown fields ignored). */

export type GeminiPart =
  | { text: string; thought?: boolean; thoughtSignature?: string }
  | { inlineData: { mimeType: string; data: string } }
  | { functionCall: { name: string; args: Record<string, unknown>; id?: string }; thoughtSignature?: string }
  | { functionResponse: { name: string; response: Record<string, unknown>; id?: string } };

export interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

export interface GeminiFunctionDeclaration {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
}

export interface GeminiGenerationConfig {
  temperature?: number;
  topP?: number;
  maxOutputTokens?: number;
  stopSequences?: string[];
  responseMimeType?: string;
  responseSchema?: Record<string, unknown>;
  thinkingConfig?: { thinkingBudget?: number; thinkingLevel?: 'low' | 'high'; includeThoughts?: boolean };
}

export interface GeminiRequestBody {
  systemInstruction?: { parts: Array<{ text: string }> };
  contents: GeminiContent[];
  /** Function declarations, and `googleSearch` (grounding with Google Search) for `webSearch`. */
  tools?: Array<
    { functionDeclarations: GeminiFunctionDeclaration[] } | { googleSearch: Record<string, never> }
  >;
  toolConfig?: { functionCallingConfig: { mode: 'AUTO' | 'ANY' | 'NONE'; allowedFunctionNames?: string[] } };
  generationConfig?: GeminiGenerationConfig;
}

export interface GeminiUsageMetadata {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  thoughtsTokenCount?: number;
  cachedContentTokenCount?: number;
  toolUsePromptTokenCount?: number;
  totalTokenCount?: number;
}

export interface GeminiResponsePart {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  functionCall?: { name?: string; args?: unknown; id?: string };
}

export interface GeminiResponse {
  candidates?: Array<{
    content?: { parts?: GeminiResponsePart[]; role?: string };
    finishReason?: string;
    index?: number;
    /** Present when the answer was grounded with Google Search: the queries it ran. */
    groundingMetadata?: { webSearchQueries?: string[] };
  }>;
  promptFeedback?: { blockReason?: string };
  usageMetadata?: GeminiUsageMetadata;
  modelVersion?: string;
  responseId?: string;
  error?: unknown;
}
