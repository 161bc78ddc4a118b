import type { ProviderCredentials } from '../provider-credentials.js';

/** Azure takes an Entra token as a bearer, or the resource key as `api-key`. */
export function azureAuthHeaders(credentials: ProviderCredentials): Record<string, string> {
  if (credentials.access_token) return { authorization: `Bearer ${credentials.access_token}` };
  return credentials.api_key ? { 'api-key': credentials.api_key } : {};
}
