import { systemOneDecisions } from '../../decisions/system-one.codec.js';
import { createOpenAICompatibleAdapter } from '../openai-compatible/openai-compatible.adapter.js';
import type { HttpProviderAdapter } from '../provider-adapter.js';
import { providerCallError } from '../provider-call.error.js';
import type { ProviderCredentials } from '../provider-credentials.js';

/** Workers AI of the resource's account: `.../ai/v1` (OpenAI-compatible), `.../ai/run/<model>`. */
function workersAi(credentials: ProviderCredentials): string {
  if (credentials.base_url) return credentials.base_url.replace(/\/+$/, '').replace(/\/v1$/, '');
  if (!credentials.account_id)
    throw providerCallError(
      'bad_request_user',
      'the cloudflare resource names no account_id (nor a base_url)',
    );
  return `https://api.cloudflare.com/client/v4/accounts/${credentials.account_id}/ai`;
}

/**
 * Workers AI's OpenAI-compatible endpoint of the resource's account for chat; its Clef decision
 * models (`clef`, `clef-flash`, or a whole `@cf/...` name) through `run`, in the System One format.
 */
const chatAdapter = createOpenAICompatibleAdapter({
  kind: 'cloudflare',
  vendor: 'Cloudflare Workers AI',
  telemetryName: 'cloudflare',
  defaultBaseUrl: (credentials) =>
    credentials.account_id
      ? `https://api.cloudflare.com/client/v4/accounts/${credentials.account_id}/ai/v1`
      : undefined,
  maxTokensField: 'max_tokens',
  streamUsageOption: true,
  reasoningEffort: 'drop',
  jsonSchema: 'native',
});

export const cloudflareAdapter: HttpProviderAdapter = {
  ...chatAdapter,
  decisions: systemOneDecisions(
    'Cloudflare Workers AI',
    (credentials, model) =>
      `${workersAi(credentials)}/run/${model.startsWith('@cf/') ? model : `@cf/cloudflare/${model}`}`,
  ),
};
