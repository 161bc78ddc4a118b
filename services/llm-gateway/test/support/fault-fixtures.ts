import type { OpenAIFakeErrorReply } from '@flowmesh/testing';
import type { GatewayCast } from './gateway-cast.js';

/** The key the fake OpenAI takes; the stale resources hold another. */
export const FAULT_KEY = 'sk-right-0123456789';

/** A gateway whose platform-managed keys are `f/ai/platform/...` and `f/ai/managed`; no retries. */
export const FAULT_GATEWAY_ENV = {
  FLOWMESH_GATEWAY_MANAGED_PROVIDER_RESOURCES: 'f/ai/platform/, f/ai/managed',
  FLOWMESH_GATEWAY_MAX_ATTEMPTS: '1',
};

/**
 * OpenAI resources on the fake at `openaiUrl`: `f/ai/own` (the user's key), `f/ai/own_stale`
 * (the user's, refused), `f/ai/managed` (the platform's) and `f/ai/platform/stale` (the
 * platform's, refused).
 */
export async function addFaultResources(cast: GatewayCast, openaiUrl: string): Promise<void> {
  const value = { base_url: `${openaiUrl}/v1` };
  await Promise.all([
    cast.providerResource('f/ai/own', 'openai', value, FAULT_KEY),
    cast.providerResource('f/ai/own_stale', 'openai', value, 'sk-stale-0123456789'),
    cast.providerResource('f/ai/managed', 'openai', value, FAULT_KEY),
    cast.providerResource('f/ai/platform/stale', 'openai', value, 'sk-stale-9876543210'),
  ]);
}

/** A spent account, as OpenAI says it: a 429 with the `insufficient_quota` marker. */
export const QUOTA_EXHAUSTED: OpenAIFakeErrorReply = {
  error: {
    status: 429,
    message: 'You exceeded your current quota, please check your plan and billing details.',
    type: 'insufficient_quota',
    code: 'insufficient_quota',
  },
};

/** A model the account does not have, as OpenAI says it. */
export function unknownModel(model: string): OpenAIFakeErrorReply {
  return {
    error: {
      status: 404,
      message: `The model \`${model}\` does not exist or you do not have access to it.`,
      type: 'invalid_request_error',
      code: 'model_not_found',
    },
  };
}
