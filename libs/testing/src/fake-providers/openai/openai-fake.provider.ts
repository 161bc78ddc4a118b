import { createRegistryIdentityClient, createRegistryItemsClient, type Actor } from '@flowmesh/contracts';
import type { MeshClient } from '@flowmesh/messaging';

/** Where `saveFakeOpenAIProvider` puts the fake: a step's provider names it as `$res:` this. */
export const FAKE_OPENAI_RESOURCE = 'f/ai/openai';

/**
 * "An OpenAI provider the steps may use": the folder `f/ai`, the fake's key as the secret
 * variable `f/ai/openai_key` and the `openai` resource `f/ai/openai` pointing at the fake with
 * that key by reference, as a user would save them.
 */
export async function saveFakeOpenAIProvider(
  client: MeshClient,
  caller: { readonly actor: Actor; readonly workspace: string },
  fake: { readonly url: string },
  apiKey: string,
): Promise<void> {
  const items = createRegistryItemsClient(client);
  await createRegistryIdentityClient(client).createFolder({ ...caller, name: 'ai' });
  await items.createVariable({ ...caller, path: 'f/ai/openai_key', value: apiKey, is_secret: true });
  await items.createResource({
    ...caller,
    path: FAKE_OPENAI_RESOURCE,
    resource_type: 'openai',
    value: { base_url: `${fake.url}/v1`, api_key: '$var:f/ai/openai_key' },
  });
}
