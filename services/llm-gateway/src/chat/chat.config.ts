import { settings } from '@flowmesh/bootstrap';
import type { z } from 'zod';
import type { RetryPolicy } from './retry.policy.js';

export interface ChatConfig {
  readonly retry: RetryPolicy;
  /** Time to a provider's response headers. */
  readonly headersTimeoutMs: number;
  /** Longest silence inside a provider's body. */
  readonly bodyTimeoutMs: number;
}

export const CHAT_CONFIG = Symbol.for('flowmesh.llm-gateway.ChatConfig');

/**
 * Provider call settings. Attempts count the first call: 3 means up to two retries of a rate
 * limit or outage per provider before the next fallback.
 */
export const chatSettingsShape = {
  FLOWMESH_GATEWAY_MAX_ATTEMPTS: settings.positiveInt().default(3),
  FLOWMESH_GATEWAY_RETRY_BASE_MS: settings.positiveInt().default(250),
  FLOWMESH_GATEWAY_RETRY_MAX_DELAY_MS: settings.positiveInt().default(10_000),
  /** A provider asking for a longer wait than this is not retried (the next fallback is tried). */
  FLOWMESH_GATEWAY_RETRY_AFTER_MAX_MS: settings.positiveInt().default(30_000),
  FLOWMESH_GATEWAY_HEADERS_TIMEOUT_MS: settings.positiveInt().default(120_000),
  FLOWMESH_GATEWAY_BODY_TIMEOUT_MS: settings.positiveInt().default(300_000),
};

type ChatSettings = z.output<z.ZodObject<typeof chatSettingsShape>>;

export function toChatConfig(env: ChatSettings): ChatConfig {
  return {
    retry: {
      maxAttempts: env.FLOWMESH_GATEWAY_MAX_ATTEMPTS,
      baseDelayMs: env.FLOWMESH_GATEWAY_RETRY_BASE_MS,
      maxDelayMs: env.FLOWMESH_GATEWAY_RETRY_MAX_DELAY_MS,
      maxRetryAfterMs: env.FLOWMESH_GATEWAY_RETRY_AFTER_MAX_MS,
    },
    headersTimeoutMs: env.FLOWMESH_GATEWAY_HEADERS_TIMEOUT_MS,
    bodyTimeoutMs: env.FLOWMESH_GATEWAY_BODY_TIMEOUT_MS,
  };
}
