import type { IncomingHttpHeaders } from 'node:http';
import { MeshError } from '@flowmesh/contracts';

import { bearerTokenOf } from '@flowmesh/http';
export const PROVIDER_RESOURCE_HEADER = 'x-flowmesh-provider-resource';
export const WORKSPACE_HEADER = 'x-flowmesh-workspace';
export const DEFAULT_WORKSPACE = 'main';

/** Who calls the HTTP API and which provider resource they name. */
export interface ProviderCaller {
  readonly token: string;
  readonly workspace: string;
  /** Resource path, `$res:` removed. */
  readonly resource: string;
}

/**
 * The caller of an HTTP request: `Authorization: Bearer <registry token>`, the provider resource
 * in `X-Flowmesh-Provider-Resource` (unless the route names it), the workspace in
 * `X-Flowmesh-Workspace` (default `main`, unless the route names it).
 */
export function providerCaller(
  headers: IncomingHttpHeaders,
  route: { workspace?: string; resource?: string } = {},
): ProviderCaller {
  const token = bearerTokenOf(headers.authorization);
  if (token === undefined)
    throw new MeshError(
      'UNAUTHENTICATED',
      'missing bearer token: send Authorization: Bearer <registry token>',
    );
  const resource = (route.resource ?? single(headers[PROVIDER_RESOURCE_HEADER]) ?? '')
    .replace(/^\$res:/, '')
    .trim();
  if (!resource) {
    throw new MeshError(
      'VALIDATION_FAILED',
      `name the provider resource in the ${PROVIDER_RESOURCE_HEADER} header (e.g. f/ai/openai)`,
      {
        param: PROVIDER_RESOURCE_HEADER,
      },
    );
  }
  const workspace = route.workspace ?? single(headers[WORKSPACE_HEADER])?.trim() ?? DEFAULT_WORKSPACE;
  return { token, workspace: workspace || DEFAULT_WORKSPACE, resource };
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
