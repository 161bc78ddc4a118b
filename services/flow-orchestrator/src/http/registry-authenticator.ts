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
  /** Asks under way, by cache key: a burst of requests with one token asks the registry once. */
  private readonly asking = new Map<string, { generation: number; identity: Promise<CallerIdentity> }>();

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
    if (!this.cache.enabled) return this.registry.authenticate({ token, workspace });
    const generation = this.cache.generation;
    const pending = this.asking.get(key);
    // An ask from before an identity change is not joined: it may answer as before the change.
    if (pending && pending.generation === generation) return pending.identity;
    const identity = this.registry.authenticate({ token, workspace });
    const entry = { generation, identity };
    this.asking.set(key, entry);
    try {
      const answered = await identity;
      this.cache.set(key, answered, now, generation);
      return answered;
    } finally {
      if (this.asking.get(key) === entry) this.asking.delete(key);
    }
  }
}
