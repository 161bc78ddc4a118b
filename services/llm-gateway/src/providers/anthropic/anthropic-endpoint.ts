import { MeshError } from '@flowmesh/contracts';
import type { ProviderCredentials } from '../provider-credentials.js';
import { modelPathSegment } from '../shared/model-path-segment.js';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com/v1';
/**
 * Pinned, not the 2026-10-21 version the newest SDKs send: that version refuses temperature and
 * top_p with a 400, and the normalized request carries them.
 */
export const ANTHROPIC_API_VERSION = '2023-06-01';
/** What Vertex takes in the body instead of the header. */
export const ANTHROPIC_VERTEX_VERSION = 'vertex-2023-10-16';
export const ANTHROPIC_1M_CONTEXT_BETA = 'context-1m-2025-08-07';

export function isVertex(credentials: ProviderCredentials): boolean {
  return credentials.platform === 'google_vertex_ai';
}

/** `https://api.anthropic.com` (accepting a base given with or without `/v1`). */
export function anthropicRoot(credentials: ProviderCredentials): string {
  return (credentials.base_url ?? ANTHROPIC_DEFAULT_BASE_URL).replace(/\/+$/, '').replace(/\/v1$/, '');
}

/**
 * `…/projects/{p}/locations/{r}/publishers/anthropic/models`, from the resource's base_url (the
 * project is only known there); a base ending at the location gets the publisher path appended.
 */
export function vertexModelsBase(credentials: ProviderCredentials): string {
  const base = credentials.base_url?.replace(/\/+$/, '');
  if (!base) {
    throw new MeshError(
      'VALIDATION_FAILED',
      'the anthropic provider resource on Vertex AI needs a base_url such as https://REGION-aiplatform.googleapis.com/v1/projects/PROJECT/locations/REGION',
      { fields: ['base_url'] },
    );
  }
  return /\/publishers\/anthropic\/models$/.test(base) ? base : `${base}/publishers/anthropic/models`;
}

/** `{base}/{model}:streamRawPredict` or `:rawPredict`. */
export function vertexPredictUrl(credentials: ProviderCredentials, model: string, stream: boolean): string {
  // Raw, as @anthropic-ai/vertex-sdk sends it (`claude-sonnet-4-5@20250929`).
  return `${vertexModelsBase(credentials)}/${modelPathSegment(model)}:${stream ? 'streamRawPredict' : 'rawPredict'}`;
}

/** Authentication and version headers, direct or on Vertex. */
export function anthropicAuthHeaders(credentials: ProviderCredentials): Record<string, string> {
  const beta: Record<string, string> = credentials.enable_1m_context
    ? { 'anthropic-beta': ANTHROPIC_1M_CONTEXT_BETA }
    : {};
  if (isVertex(credentials)) {
    const token = credentials.access_token ?? credentials.api_key;
    return { ...(token ? { authorization: `Bearer ${token}` } : {}), ...beta };
  }
  return {
    ...(credentials.api_key ? { 'x-api-key': credentials.api_key } : {}),
    'anthropic-version': ANTHROPIC_API_VERSION,
    ...beta,
  };
}
