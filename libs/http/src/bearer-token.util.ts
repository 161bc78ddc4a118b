import { MeshError } from '@flowmesh/contracts';

/** `Bearer`, in any case (RFC 7235: the scheme is case-insensitive), then the token alone. */
const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * The token of `Authorization: Bearer <token>`, or undefined when the header is absent or
 * malformed. An array (a header sent twice, gRPC metadata) is read by its first value.
 */
export function bearerTokenOf(header: string | readonly string[] | undefined): string | undefined {
  const value = typeof header === 'string' ? header : header?.[0];
  const match = value === undefined ? null : BEARER.exec(value);
  return match?.[1] || undefined;
}

/** The token of `Authorization: Bearer <token>`; without one, `missingBearerToken()`. */
export function requireBearerToken(header: string | readonly string[] | undefined): string {
  const token = bearerTokenOf(header);
  if (token === undefined) throw missingBearerToken();
  return token;
}

/** UNAUTHENTICATED, saying how to send a token. */
export function missingBearerToken(): MeshError {
  return new MeshError(
    'UNAUTHENTICATED',
    'missing bearer token: send the header "Authorization: Bearer <token>"',
  );
}
