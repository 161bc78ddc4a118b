import type { Actor, ScopeDomain } from '@flowmesh/contracts';

export interface AccessQuery {
  readonly actor: Actor;
  readonly workspace: string;
  readonly path: string;
  readonly action: 'read' | 'write';
  readonly domain: ScopeDomain;
}

/** The resource-registry's answers memory-service needs: who a token is, and what it may touch. */
export abstract class RegistryAccess {
  abstract checkAccess(query: AccessQuery): Promise<{ allowed: boolean }>;
  /** Throws UNAUTHENTICATED (or NOT_FOUND for an unknown workspace) when the token is no good. */
  abstract authenticate(request: { token: string; workspace: string }): Promise<unknown>;
}
