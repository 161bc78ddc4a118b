import { createRegistryIdentityClient, createRegistryItemsClient } from '@flowmesh/contracts';
import type { MeshClient } from '@flowmesh/messaging';

/**
 * "An `openai` resource pointing at this fake": folder `f/ai`, the key as the secret variable
 * `f/ai/openai_key` and the resource `f/ai/openai` reading it, saved in the registry as `actor`.
 * AI steps then name `$res:f/ai/openai`.
 */
export async function saveFakeOpenAIResource(
  client: MeshClient,
  inWorkspace: { actor: { token: string }; workspace: string },
  fake: { url: string },
  apiKey: string,
): Promise<void> {
  const items = createRegistryItemsClient(client);
  await createRegistryIdentityClient(client).createFolder({ ...inWorkspace, name: 'ai' });
  await items.createVariable({ ...inWorkspace, path: 'f/ai/openai_key', value: apiKey, is_secret: true });
  await items.createResource({
    ...inWorkspace,
    path: 'f/ai/openai',
    resource_type: 'openai',
    value: { base_url: `${fake.url}/v1`, api_key: '$var:f/ai/openai_key' },
  });
}
