import { MeshError, type AIProviderKind } from '@flowmesh/contracts';
import type { ProviderAdapter } from './provider-adapter.js';
import { anthropicAdapter } from './anthropic/anthropic.adapter.js';
import { bedrockAdapter } from './bedrock/bedrock.adapter.js';
import { googleAIAdapter } from './googleai/googleai.adapter.js';
import { OPENAI_FAMILY_ADAPTERS } from './openai-compatible/openai-family.adapters.js';
import { typesafeAdapter } from './typesafe/typesafe.adapter.js';

/**
 * Every adapter the gateway knows, by provider kind: one line per vendor. A kind that is not here
 * is refused with UNSUPPORTED before anything is sent.
 */
export const PROVIDER_ADAPTERS: Partial<Record<AIProviderKind, ProviderAdapter>> = {
  ...OPENAI_FAMILY_ADAPTERS,
  anthropic: anthropicAdapter,
  googleai: googleAIAdapter,
  aws_bedrock: bedrockAdapter,
  typesafe: typesafeAdapter,
};

export class ProviderRegistry {
  constructor(
    private readonly adapters: Partial<Record<AIProviderKind, ProviderAdapter>> = PROVIDER_ADAPTERS,
  ) {}

  has(kind: AIProviderKind): boolean {
    return this.adapters[kind] !== undefined;
  }

  get(kind: AIProviderKind): ProviderAdapter {
    const adapter = this.adapters[kind];
    if (!adapter)
      throw new MeshError('UNSUPPORTED', `the llm-gateway has no adapter for provider "${kind}"`, { kind });
    return adapter;
  }

  kinds(): AIProviderKind[] {
    return Object.keys(this.adapters) as AIProviderKind[];
  }
}
