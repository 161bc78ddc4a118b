import { settings } from '@flowmesh/bootstrap';
import type { z } from 'zod';

/** Images and PDFs the gateway fetches by URL for a translated call (`media/`). */
export interface MediaConfig {
  /** The largest file fetched for one part. */
  readonly maxBytes: number;
  /** What all the files of one request may add up to. */
  readonly maxRequestBytes: number;
  /** One fetch from the first byte out to the last byte in, redirects included. */
  readonly timeoutMs: number;
  /** Fetched files kept for later requests of the same workspace, in bytes (0: none kept). */
  readonly cacheBytes: number;
  /** How long a kept file is used at most (less when its server says so). */
  readonly cacheTtlMs: number;
}

export const MEDIA_CONFIG = Symbol.for('flowmesh.llm-gateway.MediaConfig');

export const mediaSettingsShape = {
  FLOWMESH_GATEWAY_MAX_MEDIA_BYTES: settings.positiveInt().default(20 * 1024 * 1024),
  FLOWMESH_GATEWAY_MEDIA_TIMEOUT_MS: settings.positiveInt().default(15_000),
  FLOWMESH_GATEWAY_MEDIA_CACHE_BYTES: settings.wholeNumber().default(32 * 1024 * 1024),
  FLOWMESH_GATEWAY_MEDIA_CACHE_TTL_S: settings.positiveInt().default(300),
};

type MediaSettings = z.output<z.ZodObject<typeof mediaSettingsShape>>;

/** `maxRequestBytes` is the HTTP body limit: fetched media weigh no more than inline ones may. */
export function toMediaConfig(env: MediaSettings, maxBodyBytes: number): MediaConfig {
  return {
    maxBytes: env.FLOWMESH_GATEWAY_MAX_MEDIA_BYTES,
    maxRequestBytes: Math.max(maxBodyBytes, env.FLOWMESH_GATEWAY_MAX_MEDIA_BYTES),
    timeoutMs: env.FLOWMESH_GATEWAY_MEDIA_TIMEOUT_MS,
    cacheBytes: env.FLOWMESH_GATEWAY_MEDIA_CACHE_BYTES,
    cacheTtlMs: env.FLOWMESH_GATEWAY_MEDIA_CACHE_TTL_S * 1000,
  };
}
