import type { AIProviderKind } from '@flowmesh/contracts';
import type { ProviderAdapter } from '../provider-adapter.js';
import { cloudflareAdapter } from '../cloudflare/cloudflare.adapter.js';
import { azureFoundryAdapter } from '../azure-foundry/azure-foundry.adapter.js';
import { azureOpenAIAdapter } from '../azure-openai/azure-openai.adapter.js';
import { customaiAdapter } from '../customai/customai.adapter.js';
import { deepseekAdapter } from '../deepseek/deepseek.adapter.js';
import { groqAdapter } from '../groq/groq.adapter.js';
import { mistralAdapter } from '../mistral/mistral.adapter.js';
import { openaiAdapter } from '../openai/openai.adapter.js';
import { openrouterAdapter } from '../openrouter/openrouter.adapter.js';
import { togetheraiAdapter } from '../togetherai/togetherai.adapter.js';

/** The OpenAI-compatible vendors, by kind. */
export const OPENAI_FAMILY_ADAPTERS: Partial<Record<AIProviderKind, ProviderAdapter>> = {
  openai: openaiAdapter,
  azure_openai: azureOpenAIAdapter,
  azure_foundry: azureFoundryAdapter,
  mistral: mistralAdapter,
  deepseek: deepseekAdapter,
  groq: groqAdapter,
  openrouter: openrouterAdapter,
  togetherai: togetheraiAdapter,
  customai: customaiAdapter,
  cloudflare: cloudflareAdapter,
};
