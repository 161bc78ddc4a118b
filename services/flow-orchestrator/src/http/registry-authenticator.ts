import { createHash } from 'node:crypto';
import {
  createRegistryIdentityClient,
  type CallerIdentity,
  type RegistryIdentityClient,
} from '@flowmesh/contracts';
import { AuthenticationCache } from '@flowmesh/http';
import { MeshClient } from '@flowmesh/messaging';
import { Inject, Injectable } from '@nestjs/common';

export const AUTHENTICATION_CACHE = Symbol('flow-orchestrator.authentication-cache');

/**
 * Identities the registry vouched for, kept a moment: a CLI polling `getupdate` or a script waiting
 * on a result would otherwise ask the registry once per request. The registry's `evt.identity.*`
 * events clear it (`IdentityEventsListener`); without them a revoked token works for at most the
 * time to live (`FLOWMESH_AUTH_CACHE_MS`, 0 turns the cache off), and never past its own expiry.
 */
export function identityCache(ttlMs: number): AuthenticationCache<CallerIdentity> {
  return new AuthenticationCache<CallerIdentity>(ttlMs, {
    expiresAtMs: (identity) => (identity.tokenExpiresAt ? Date.parse(identity.tokenExpiresAt) : undefined),
  });
}

/**
 * Who a token is in a workspace, as `registry.auth.authenticate` says. A bad token is the
 * registry's UNAUTHENTICATED, an unknown workspace its NOT_FOUND; both pass through unchanged.
 * A burst of requests with one token asks the registry once.
 */
@Injectable()
export class RegistryAuthenticator {
  private readonly registry: RegistryIdentityClient;

  constructor(
    mesh: MeshClient,
    @Inject(AUTHENTICATION_CACHE) private readonly cache: AuthenticationCache<CallerIdentity>,
  ) {
    this.registry = createRegistryIdentityClient(mesh);
  }

  async authenticate(token: string, workspace: string): Promise<CallerIdentity> {
    // The key holds a digest, never the token itself.
    const key = `${workspace}\n${createHash('sha256').update(token).digest('base64url')}`;
    const now = Date.now();
    return (
      this.cache.get(key, now) ??
      this.cache.loadOnce(key, now, () => this.registry.authenticate({ token, workspace }))
    );
  }
}
