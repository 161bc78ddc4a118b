import { MeshError } from '@flowmesh/contracts';

/** The token of `Authorization: Bearer <token>`, or undefined when the header is absent or malformed. */
export function bearerTokenOf(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  const match = value === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(value);
  return match?.[1] || undefined;
}

export function missingBearerToken(): MeshError {
  return new MeshError(
    'UNAUTHENTICATED',
    'missing bearer token: send the header "Authorization: Bearer <token>"',
  );
}
