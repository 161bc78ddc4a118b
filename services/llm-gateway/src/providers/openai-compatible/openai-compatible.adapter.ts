import { MeshError } from '@flowmesh/contracts';
import { providerCallError } from '../provider-call.error.js';
import type {
  EmbeddingsCall,
  EmbeddingsResult,
  HttpProviderAdapter,
  ListedModel,
  ProxyBuildArgs,
  ProxyHttpRequest,
} from '../provider-adapter.js';
import type { ProviderCredentials } from '../provider-credentials.js';
import type { OpenAICompatibleProfile, OpenAIOperation } from './openai-compatible.profile.js';
import { classifyOpenAIError, classifyOpenAIStreamError } from './openai-error.classifier.js';
import { openAIImageCodec } from './openai-image.codec.js';
import { buildOpenAIChatBody } from './openai-request.builder.js';
import { parseOpenAIChatCompletion } from './openai-response.parser.js';
import { parseOpenAIStream } from './openai-stream.parser.js';
import { normalizeOpenAIUsage } from './openai-usage.js';
import type {
  OpenAIEmbeddingsBody,
  OpenAIEmbeddingsResponse,
  OpenAIModelsResponse,
} from './openai-wire.types.js';

const PATHS: Record<OpenAIOperation, string> = {
  chat: 'chat/completions',
  embeddings: 'embeddings',
  models: 'models',
  responses: 'responses',
};

/** Caller headers the workspace proxy passes on to the provider; everything else is dropped. */
const PROXY_FORWARDED_HEADERS = ['content-type', 'accept', 'openai-beta'];

/** One adapter for a vendor of the OpenAI-compatible family, from its profile. */
export function createOpenAICompatibleAdapter(profile: OpenAICompatibleProfile): HttpProviderAdapter {
  const baseUrl = (credentials: ProviderCredentials): string => {
    const fallback =
      typeof profile.defaultBaseUrl === 'function'
        ? profile.defaultBaseUrl(credentials)
        : profile.defaultBaseUrl;
    const base = credentials.base_url ?? fallback;
    if (!base) {
      throw new MeshError('VALIDATION_FAILED', `the ${profile.kind} provider resource needs a base_url`, {
        fields: ['base_url'],
      });
    }
    return base.replace(/\/+$/, '');
  };
  const url = (credentials: ProviderCredentials, operation: OpenAIOperation, model: string): string => {
    const base = baseUrl(credentials);
    return profile.endpoint
      ? profile.endpoint(base, operation, model, credentials)
      : `${base}/${PATHS[operation]}`;
  };
  const headers = (credentials: ProviderCredentials, json: boolean): Record<string, string> => ({
    ...(json ? { 'content-type': 'application/json' } : {}),
    ...(profile.authHeaders
      ? profile.authHeaders(credentials)
      : credentials.api_key
        ? { authorization: `Bearer ${credentials.api_key}` }
        : {}),
    ...profile.extraHeaders?.(credentials),
  });

  return {
    kind: profile.kind,
    transport: 'http',
    telemetryName: () => profile.telemetryName,
    streamFraming: 'sse',

    buildRequest(call, credentials) {
      const body = buildOpenAIChatBody(call, profile);
      return {
        method: 'POST',
        url: url(credentials, 'chat', call.model),
        headers: { ...headers(credentials, true), ...(call.stream ? { accept: 'text/event-stream' } : {}) },
        body: profile.finishBody ? profile.finishBody(body, call, credentials) : body,
      };
    },

    parseResponse: (json) => parseOpenAIChatCompletion(json, profile.vendor),

    parseStream: (frames) =>
      parseOpenAIStream(frames, profile.vendor, (payload) =>
        classifyOpenAIStreamError(profile.vendor, payload),
      ),

    classifyError: (status, body, responseHeaders) =>
      classifyOpenAIError(profile.vendor, status, body, responseHeaders),

    normalizeUsage: normalizeOpenAIUsage,
    ...(profile.webSearch ? { webSearch: true } : {}),

    embeddings: {
      buildRequest(call, credentials) {
        const body: OpenAIEmbeddingsBody = {
          model: call.model,
          input: [...call.input],
          encoding_format: 'float',
          ...(call.dimensions !== undefined ? { dimensions: call.dimensions } : {}),
        };
        return {
          method: 'POST',
          url: url(credentials, 'embeddings', call.model),
          headers: headers(credentials, true),
          body,
        };
      },
      parseResponse: (json, call) => parseEmbeddings(json, call, profile.vendor),
    },

    ...(profile.images
      ? {
          images: openAIImageCodec(profile.images, profile.vendor, (credentials, body) => ({
            method: 'POST',
            url: url(credentials, profile.images === 'responses' ? 'responses' : 'chat', String(body.model)),
            headers: headers(credentials, true),
            body,
          })),
        }
      : {}),

    models: {
      buildRequest: (credentials) => ({
        method: 'GET',
        url: url(credentials, 'models', ''),
        headers: headers(credentials, false),
      }),
      parseResponse: (json) => parseModels(json),
    },

    buildProxyRequest(args: ProxyBuildArgs, credentials: ProviderCredentials): ProxyHttpRequest {
      const path = args.path.replace(/^\/+/, '');
      const query = new URLSearchParams(args.query).toString();
      const forwarded = Object.fromEntries(
        PROXY_FORWARDED_HEADERS.flatMap((name) => (args.headers[name] ? [[name, args.headers[name]]] : [])),
      );
      return {
        method: args.method,
        url: `${baseUrl(credentials)}/${path}${query ? `?${query}` : ''}`,
        headers: { ...forwarded, ...headers(credentials, false) },
        ...(args.body ? { body: args.body } : {}),
      };
    },
  };
}

function parseEmbeddings(json: unknown, call: EmbeddingsCall, vendor: string): EmbeddingsResult {
  const body = (typeof json === 'object' && json !== null ? json : {}) as OpenAIEmbeddingsResponse;
  const data = [...(body.data ?? [])].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
  const embeddings = data.map((entry) =>
    Array.isArray(entry.embedding) ? entry.embedding : decodeBase64Floats(entry.embedding),
  );
  if (embeddings.length !== call.input.length) {
    throw providerCallError(
      'provider_outage',
      `${vendor} returned ${embeddings.length} embeddings for ${call.input.length} inputs`,
    );
  }
  return {
    embeddings,
    model: body.model ?? call.model,
    inputTokens: body.usage?.prompt_tokens ?? body.usage?.total_tokens ?? 0,
  };
}

function decodeBase64Floats(value: string | undefined): number[] {
  if (!value) return [];
  const bytes = Buffer.from(value, 'base64');
  const floats: number[] = [];
  for (let at = 0; at + 4 <= bytes.length; at += 4) floats.push(bytes.readFloatLE(at));
  return floats;
}

function parseModels(json: unknown): ListedModel[] {
  const body = (typeof json === 'object' && json !== null ? json : {}) as OpenAIModelsResponse;
  return (body.data ?? []).flatMap((model) =>
    typeof model.id === 'string'
      ? [{ id: model.id, ...(model.owned_by ? { ownedBy: model.owned_by } : {}) }]
      : [],
  );
}
