import { z } from 'zod';

/** Job tokens are `fmj_<claims>.<signature>`: base64url JSON claims, signed by the registry. */
export const JOB_TOKEN_PREFIX = 'fmj_';

/** What a job token says; the identity behind `onBehalfOf` is looked up when it is used. */
export const JobTokenClaimsSchema = z.object({
  v: z.literal(1),
  workspace: z.string(),
  jobId: z.string(),
  onBehalfOf: z.string(),
  scopes: z.array(z.string()).optional(),
  /** Unix seconds. */
  exp: z.number().int(),
});
export type JobTokenClaims = z.infer<typeof JobTokenClaimsSchema>;

/** The claims part of a job token, unverified (only the registry, holding the key, verifies). */
export function readJobTokenClaims(token: string): JobTokenClaims | undefined {
  if (!token.startsWith(JOB_TOKEN_PREFIX)) return undefined;
  const [body, signature, extra] = token.slice(JOB_TOKEN_PREFIX.length).split('.');
  if (body === undefined || signature === undefined || extra !== undefined) return undefined;
  try {
    const claims = JobTokenClaimsSchema.safeParse(
      JSON.parse(Buffer.from(body, 'base64url').toString('utf8')),
    );
    return claims.success ? claims.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The authority a job token acts with: its workspace, principal and scopes, whatever its job and
 * expiry. Two jobs whose tokens name one authority may do the same things. For a token we hold
 * (one the registry issued to us), never to trust one a client sends: that needs the registry.
 */
export function jobTokenAuthority(token: string): string | undefined {
  const claims = readJobTokenClaims(token);
  if (!claims) return undefined;
  return JSON.stringify([claims.workspace, claims.onBehalfOf, [...(claims.scopes ?? [])].sort()]);
}
