import { MeshError } from '@flowmesh/contracts';
import type { ProxyBuildArgs, ProxyHttpRequest } from '../provider-adapter.js';
import type { ProviderCredentials } from '../provider-credentials.js';
import {
  ANTHROPIC_1M_CONTEXT_BETA,
  ANTHROPIC_API_VERSION,
  ANTHROPIC_VERTEX_VERSION,
  anthropicAuthHeaders,
  anthropicRoot,
  isVertex,
  vertexPredictUrl,
} from './anthropic-endpoint.js';

/** Caller headers passed on; authentication is always the gateway's. */
const FORWARDED = ['content-type', 'accept'];

/**
 * The workspace proxy's Anthropic request: the caller's Messages body goes through unchanged to
 * api.anthropic.com (its own `anthropic-version` kept, so an SDK gets the API it was written for);
 * on Vertex the model moves from the body into the URL and the version into the body.
 */
export function buildAnthropicProxyRequest(
  args: ProxyBuildArgs,
  credentials: ProviderCredentials,
): ProxyHttpRequest {
  const path = args.path.replace(/^\/+/, '');
  const forwarded = Object.fromEntries(
    FORWARDED.flatMap((name) => (args.headers[name] ? [[name, args.headers[name]]] : [])),
  );
  const auth = anthropicAuthHeaders(credentials);
  const betas = [
    args.headers['anthropic-beta'],
    credentials.enable_1m_context ? ANTHROPIC_1M_CONTEXT_BETA : undefined,
  ]
    .filter((beta): beta is string => Boolean(beta))
    .join(',');
  const beta: Record<string, string> = betas
    ? { 'anthropic-beta': [...new Set(betas.split(',').map((entry) => entry.trim()))].join(',') }
    : {};
  if (!isVertex(credentials)) {
    const query = new URLSearchParams(args.query).toString();
    return {
      method: args.method,
      url: `${anthropicRoot(credentials)}/${path.startsWith('v1/') ? path : `v1/${path}`}${query ? `?${query}` : ''}`,
      headers: {
        ...forwarded,
        ...auth,
        'anthropic-version': args.headers['anthropic-version'] ?? ANTHROPIC_API_VERSION,
        ...beta,
      },
      ...(args.body ? { body: args.body } : {}),
    };
  }
  if (path !== 'v1/messages' && path !== 'messages') {
    throw new MeshError('UNSUPPORTED', `the Anthropic proxy on Vertex AI serves messages only, not ${path}`);
  }
  const body = parseBody(args.body);
  const { model, ...rest } = body;
  if (typeof model !== 'string' || model === '') {
    throw new MeshError('VALIDATION_FAILED', 'the Messages body needs a model', { fields: ['model'] });
  }
  const vertexBody = { anthropic_version: ANTHROPIC_VERTEX_VERSION, ...rest };
  return {
    method: 'POST',
    url: vertexPredictUrl(credentials, model, rest.stream === true),
    headers: { ...forwarded, 'content-type': 'application/json', ...auth, ...beta },
    body: new TextEncoder().encode(JSON.stringify(vertexBody)),
  };
}

function parseBody(body: Uint8Array | undefined): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(new TextDecoder().decode(body ?? new Uint8Array()));
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // falls through to the refusal below
  }
  throw new MeshError('VALIDATION_FAILED', 'the Messages body must be a JSON object');
}
