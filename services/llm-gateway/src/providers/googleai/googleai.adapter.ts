import type { EmbeddingInputType } from '@flowmesh/contracts';
import type { HttpProviderAdapter, ListedModel, ProviderHttpRequest } from '../provider-adapter.js';
import type { ProviderCredentials } from '../provider-credentials.js';
import { modelPathSegment } from '../shared/model-path-segment.js';
import { classifyGeminiError } from './gemini-error.classifier.js';
import { geminiImageCodec } from './gemini-image.codec.js';
import { buildGeminiBody } from './gemini-request.builder.js';
import { parseGeminiResponse } from './gemini-response.parser.js';
import { parseGeminiStream } from './gemini-stream.parser.js';
import { normalizeGeminiUsage } from './gemini-usage.js';

export const GEMINI_DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com/v1beta';

function base(credentials: ProviderCredentials): string {
  return (credentials.base_url ?? GEMINI_DEFAULT_BASE_URL).replace(/\/+$/, '');
}

function authHeaders(credentials: ProviderCredentials): Record<string, string> {
  return credentials.api_key ? { 'x-goog-api-key': credentials.api_key } : {};
}

/** `gemini-2.5-flash`, also when given as the API's resource name `models/gemini-2.5-flash`. */
function modelId(model: string): string {
  return modelPathSegment(model.replace(/^models\//, ''));
}

/**
 * Google AI (Gemini API), converted to and from Gemini's own format. Custom headers (from the
 * gateway's configuration and the resource) reach Gemini like every other provider: the executor
 * adds them to what `buildRequest` returns. There is no pass-through proxy request: the workspace
 * proxy answers Google AI in OpenAI shape through this adapter.
 */
/** Gemini's `taskType` for each input type of the internal API. */
const GEMINI_TASK_TYPES: Readonly<Record<EmbeddingInputType, string>> = {
  search_document: 'RETRIEVAL_DOCUMENT',
  search_query: 'RETRIEVAL_QUERY',
  classification: 'CLASSIFICATION',
  clustering: 'CLUSTERING',
};

export const googleAIAdapter: HttpProviderAdapter = {
  kind: 'googleai',
  transport: 'http',
  telemetryName: () => 'gcp.gemini',
  streamFraming: 'sse',

  buildRequest(call, credentials): ProviderHttpRequest {
    const operation = call.stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
    return {
      method: 'POST',
      url: `${base(credentials)}/models/${modelId(call.model)}:${operation}`,
      headers: {
        'content-type': 'application/json',
        ...(call.stream ? { accept: 'text/event-stream' } : {}),
        ...authHeaders(credentials),
      },
      body: buildGeminiBody(call),
    };
  },

  parseResponse: (json) => parseGeminiResponse(json),
  parseStream: (frames) => parseGeminiStream(frames),
  classifyError: classifyGeminiError,
  normalizeUsage: normalizeGeminiUsage,
  webSearch: true,

  embeddings: {
    buildRequest(call, credentials) {
      const model = `models/${modelId(call.model)}`;
      return {
        method: 'POST',
        url: `${base(credentials)}/${model}:batchEmbedContents`,
        headers: { 'content-type': 'application/json', ...authHeaders(credentials) },
        body: {
          requests: call.input.map((text) => ({
            model,
            content: { parts: [{ text }] },
            ...(call.dimensions !== undefined ? { outputDimensionality: call.dimensions } : {}),
            ...(call.inputType !== undefined ? { taskType: GEMINI_TASK_TYPES[call.inputType] } : {}),
          })),
        },
      };
    },
    parseResponse(json, call) {
      const embeddings = (
        (json as { embeddings?: Array<{ values?: number[] }> } | null)?.embeddings ?? []
      ).map((entry) => entry.values ?? []);
      // batchEmbedContents reports no token count.
      return { embeddings, model: call.model, inputTokens: 0 };
    },
  },

  images: geminiImageCodec((credentials, model, body) => ({
    method: 'POST',
    url: `${base(credentials)}/models/${modelId(model)}:generateContent`,
    headers: { 'content-type': 'application/json', ...authHeaders(credentials) },
    body,
  })),

  models: {
    buildRequest: (credentials) => ({
      method: 'GET',
      url: `${base(credentials)}/models?pageSize=1000`,
      headers: authHeaders(credentials),
    }),
    parseResponse(json): ListedModel[] {
      const models =
        (json as { models?: Array<{ name?: unknown; supportedGenerationMethods?: unknown }> } | null)
          ?.models ?? [];
      return models.flatMap((model) =>
        typeof model.name === 'string'
          ? [{ id: model.name.replace(/^models\//, ''), ownedBy: 'google' }]
          : [],
      );
    },
  },
};
