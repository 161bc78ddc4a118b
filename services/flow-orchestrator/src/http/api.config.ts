import { settings } from '@flowmesh/bootstrap';
import { z } from 'zod';

/** Settings of the HTTP run API, keyed by environment variable. */
export const apiSettingsShape = {
  /** How long an identity the registry vouched for is reused (ms); 0 asks the registry every time. */
  FLOWMESH_AUTH_CACHE_MS: z
    .string()
    .regex(/^\d+$/, 'must be a whole number of milliseconds (0 turns the cache off)')
    .transform(Number)
    .default(1_000),
  /** The address users reach the mesh at: resume and approval links are built on it. */
  FLOWMESH_PUBLIC_URL: settings.httpUrl().default('http://127.0.0.1:8000'),
  /** How long `run_wait_result` holds a request before answering TIMEOUT with the job id (ms). */
  FLOWMESH_WAIT_RESULT_TIMEOUT_MS: settings.positiveInt().default(60_000),
};

export interface ApiConfig {
  readonly authCacheMs: number;
  /** No trailing slash. */
  readonly publicUrl: string;
  readonly waitResultTimeoutMs: number;
}

type ApiSettings = z.output<z.ZodObject<typeof apiSettingsShape>>;

export function toApiConfig(env: ApiSettings): ApiConfig {
  return {
    authCacheMs: env.FLOWMESH_AUTH_CACHE_MS,
    publicUrl: env.FLOWMESH_PUBLIC_URL.replace(/\/+$/, ''),
    waitResultTimeoutMs: env.FLOWMESH_WAIT_RESULT_TIMEOUT_MS,
  };
}
