import { WhoamiAnswerSchema } from '@flowmesh/contracts';
import { pushItems } from '../sync/push-items.js';
import type { RegistryHttp } from '../sync/registry-connection.js';

/** The OpenAI-compatible endpoint `npm start` runs the agent example against, from its settings. */
export interface ExampleLlm {
  /** Base URL of the endpoint, `.../v1`. */
  readonly url: string;
  readonly key?: string;
  readonly model?: string;
}

/** `FLOWMESH_EXAMPLE_LLM_URL` (and `_KEY`, `_MODEL`); undefined when no endpoint is named. */
export function exampleLlmFrom(env: NodeJS.ProcessEnv): ExampleLlm | undefined {
  const url = env.FLOWMESH_EXAMPLE_LLM_URL?.trim();
  if (!url) return undefined;
  const key = env.FLOWMESH_EXAMPLE_LLM_KEY?.trim();
  const model = env.FLOWMESH_EXAMPLE_LLM_MODEL?.trim();
  return { url, ...(key ? { key } : {}), ...(model ? { model } : {}) };
}

/**
 * Saves the endpoint as the caller's `openai` resource `u/<caller>/example_llm`, its key as a
 * secret variable beside it (never in the resource), and answers the resource as `$res:<path>`.
 */
export async function saveExampleLlm(http: RegistryHttp, llm: ExampleLlm): Promise<string> {
  const { username } = await http.get('users/whoami', WhoamiAnswerSchema);
  const resource = `u/${username}/example_llm`;
  const key = `u/${username}/example_llm_key`;
  const results = await pushItems(http, [
    ...(llm.key
      ? [
          {
            kind: 'variable' as const,
            path: key,
            value: llm.key,
            is_secret: true,
            description: 'example LLM key',
          },
        ]
      : []),
    {
      kind: 'resource' as const,
      path: resource,
      resource_type: 'openai',
      value: { base_url: llm.url, ...(llm.key ? { api_key: `$var:${key}` } : {}) },
      description: 'The endpoint npm start runs examples/flows/agent.yaml against',
    },
  ]);
  const failed = results.find((result) => result.error);
  if (failed) throw new Error(`cannot save ${failed.document.path}: ${failed.error}`);
  return `$res:${resource}`;
}
