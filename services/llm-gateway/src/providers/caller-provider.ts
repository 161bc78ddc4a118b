import type { Actor, AIProviderKind, InlineProviderResource } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { CredentialsResolver } from '../credentials/credentials-resolver.js';
import type { ProviderAdapter } from './provider-adapter.js';
import type { ProviderCredentials } from './provider-credentials.js';
import { ProviderRegistry } from './provider-registry.js';

/** A NATS request naming its provider: who asks, in which workspace, which resource of which kind. */
export interface ProviderRequest {
  readonly actor: Actor;
  readonly workspace: string;
  readonly provider: { readonly kind: AIProviderKind; readonly resource: string | InlineProviderResource };
}

/**
 * The provider a request names, as its caller may use it: the adapter of its kind (UNSUPPORTED
 * before anything is read for a kind the gateway lacks), the credentials read as the caller.
 */
@Injectable()
export class CallerProvider {
  constructor(
    private readonly registry: ProviderRegistry,
    private readonly resolver: CredentialsResolver,
  ) {}

  async of(
    request: ProviderRequest,
  ): Promise<{ adapter: ProviderAdapter; credentials: ProviderCredentials }> {
    const adapter = this.registry.get(request.provider.kind);
    const credentials = await this.resolver.resolve({
      actor: request.actor,
      workspace: request.workspace,
      resource: request.provider.resource,
      kind: request.provider.kind,
    });
    return { adapter, credentials };
  }
}
