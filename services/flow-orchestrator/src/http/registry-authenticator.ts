import { createHash } from 'node:crypto';
import {
  createRegistryIdentityClient,
  type CallerIdentity,
  type RegistryIdentityClient,
} from '@flowmesh/contracts';
import { MeshClient } from '@flowmesh/messaging';
import { Inject, Injectable } from '@nestjs/common';
import { AuthenticationCache } from './authentication.cache.js';

export const AUTHENTICATION_CACHE = Symbol('flow-orchestrator.authentication-cache');

/**
 * Who a token is in a workspace, as `registry.auth.authenticate` says. A bad token is the
 * registry's UNAUTHENTICATED, an unknown workspace its NOT_FOUND; both pass through unchanged.
 */
@Injectable()
export class RegistryAuthenticator {
  private readonly registry: RegistryIdentityClient;

  constructor(
    mesh: MeshClient,
    @Inject(AUTHENTICATION_CACHE) private readonly cache: AuthenticationCache,
  ) {
    this.registry = createRegistryIdentityClient(mesh);
  }

  async authenticate(token: string, workspace: string): Promise<CallerIdentity> {
    // The key holds a digest, never the token itself.
    const key = `${workspace}\n${createHash('sha256').update(token).digest('base64url')}`;
    const now = Date.now();
    const cached = this.cache.get(key, now);
    if (cached) return cached;
    const identity = await this.registry.authenticate({ token, workspace });
    this.cache.set(key, identity, now);
    return identity;
  }
}
