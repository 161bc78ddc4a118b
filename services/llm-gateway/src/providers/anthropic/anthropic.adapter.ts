import { MeshError } from '@flowmesh/contracts';
import type { HttpProviderAdapter, ListedModel } from '../provider-adapter.js';
import {
  ANTHROPIC_VERTEX_VERSION,
  anthropicAuthHeaders,
  anthropicRoot,
  isVertex,
  vertexPredictUrl,
} from './anthropic-endpoint.js';
import { classifyAnthropicError } from './anthropic-error.classifier.js';
import { buildAnthropicProxyRequest } from './anthropic-proxy.builder.js';
import { buildAnthropicBody } from './anthropic-request.builder.js';
import { parseAnthropicMessage } from './anthropic-response.parser.js';
import { parseAnthropicStream } from './anthropic-stream.parser.js';
import { normalizeAnthropicUsage } from './anthropic-usage.js';

/** Anthropic Messages, on api.anthropic.com (or a compatible base URL) and on Google Vertex AI. */
export const anthropicAdapter: HttpProviderAdapter = {
  kind: 'anthropic',
  transport: 'http',
  telemetryName: (credentials) => (isVertex(credentials) ? 'gcp.vertex_ai' : 'anthropic'),
  streamFraming: 'sse',

  buildRequest(call, credentials) {
    const vertex = isVertex(credentials);
    return {
      method: 'POST',
      url: vertex
        ? vertexPredictUrl(credentials, call.model, call.stream)
        : `${anthropicRoot(credentials)}/v1/messages`,
      headers: {
        'content-type': 'application/json',
        ...(call.stream ? { accept: 'text/event-stream' } : {}),
        ...anthropicAuthHeaders(credentials),
      },
      body: buildAnthropicBody(call, vertex ? { vertexVersion: ANTHROPIC_VERTEX_VERSION } : {}),
    };
  },

  parseResponse: (json, call) => parseAnthropicMessage(json, call),
  parseStream: (frames, call) => parseAnthropicStream(frames, call),
  classifyError: classifyAnthropicError,
  normalizeUsage: normalizeAnthropicUsage,
  webSearch: true,

  models: {
    buildRequest(credentials) {
      if (isVertex(credentials))
        throw new MeshError('UNSUPPORTED', 'Vertex AI does not list Anthropic models');
      return {
        method: 'GET',
        url: `${anthropicRoot(credentials)}/v1/models?limit=1000`,
        headers: anthropicAuthHeaders(credentials),
      };
    },
    parseResponse(json): ListedModel[] {
      const data = (json as { data?: Array<{ id?: unknown }> } | null)?.data ?? [];
      return data.flatMap((model) =>
        typeof model.id === 'string' ? [{ id: model.id, ownedBy: 'anthropic' }] : [],
      );
    },
  },

  buildProxyRequest: buildAnthropicProxyRequest,
};
