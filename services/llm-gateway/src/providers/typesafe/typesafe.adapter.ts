import { MeshError } from '@flowmesh/contracts';
import { systemOneDecisions } from '../../decisions/system-one.codec.js';
import { createOpenAICompatibleAdapter } from '../openai-compatible/openai-compatible.adapter.js';
import type { HttpProviderAdapter } from '../provider-adapter.js';

const TYPESAFE_API = 'https://api.typesafe.ai/v1';

/**
 * TypeSafe serves decision models (Jev) only, in the System One format at `{base_url}/systemone`
 * (`base_url` ends in its API version, `https://api.typesafe.ai/v1` by default, as Windmill's); its
 * errors are classified as the OpenAI-shaped vendors' are. A chat is refused before anything is sent.
 */
export const typesafeAdapter: HttpProviderAdapter = {
  ...createOpenAICompatibleAdapter({
    kind: 'typesafe',
    vendor: 'TypeSafe',
    telemetryName: 'typesafe',
    defaultBaseUrl: TYPESAFE_API,
    maxTokensField: 'max_tokens',
    streamUsageOption: false,
    reasoningEffort: 'drop',
    jsonSchema: 'json_object',
  }),
  buildRequest() {
    throw new MeshError(
      'UNSUPPORTED',
      'TypeSafe serves decision models (aidecision steps), not chat: use another provider for an aiagent step',
    );
  },
  decisions: systemOneDecisions(
    'TypeSafe',
    (credentials) => `${(credentials.base_url ?? TYPESAFE_API).replace(/\/+$/, '')}/systemone`,
  ),
};
