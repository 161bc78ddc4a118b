import type { Actor, AIProviderKind, CallerIdentity, InlineProviderResource } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { CredentialsResolver, type CredentialsQuery } from '../credentials/credentials-resolver.js';
import type { ProviderAdapter } from './provider-adapter.js';
import type { ProviderCredentials } from './provider-credentials.js';
import { ProviderRegistry } from './provider-registry.js';

/** A NATS request naming its provider: who asks, in which workspace, which resource of which kind. */
export interface ProviderRequest {
  readonly actor: Actor;
  readonly workspace: string;
  readonly provider: { readonly kind: AIProviderKind; readonly resource: string | InlineProviderResource };
}

/** A resolver that also says who the caller is (the registry-backed one does), for the audit row. */
interface IdentityResolver {
  resolveProvider(
    query: CredentialsQuery,
  ): Promise<{ credentials: ProviderCredentials; identity: CallerIdentity }>;
}

function knowsIdentity(resolver: CredentialsResolver): resolver is CredentialsResolver & IdentityResolver {
  return typeof (resolver as Partial<IdentityResolver>).resolveProvider === 'function';
}

/**
 * The provider a request names, as its caller may use it: the adapter of its kind (UNSUPPORTED
 * before anything is read for a kind the gateway lacks), the credentials read as the caller, and
 * who the caller is when the resolver knows (for the audit row).
 */
@Injectable()
export class CallerProvider {
  constructor(
    private readonly registry: ProviderRegistry,
    private readonly resolver: CredentialsResolver,
  ) {}

  async of(request: ProviderRequest): Promise<{
    adapter: ProviderAdapter;
    credentials: ProviderCredentials;
    identity?: CallerIdentity;
  }> {
    const adapter = this.registry.get(request.provider.kind);
    const query = {
      actor: request.actor,
      workspace: request.workspace,
      resource: request.provider.resource,
      kind: request.provider.kind,
    };
    if (knowsIdentity(this.resolver)) return { adapter, ...(await this.resolver.resolveProvider(query)) };
    return { adapter, credentials: await this.resolver.resolve(query) };
  }
}
