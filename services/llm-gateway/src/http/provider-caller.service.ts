import type { IncomingHttpHeaders } from 'node:http';
import { Injectable } from '@nestjs/common';
import { withCredentialsFault } from '../credentials/key-ownership.js';
import {
  RegistryCredentialsResolver,
  type ResolvedProvider,
} from '../credentials/registry-credentials.resolver.js';
import { providerCaller, type ProviderCaller } from './provider-caller.js';

/** A caller with the provider resource it named, resolved. */
export type CallerProvider = ResolvedProvider & ProviderCaller;

/**
 * Bearer auth for the HTTP surfaces: the registry authenticates the token and reads the named
 * provider resource as that caller (a resource the caller may not read is NOT_FOUND, like a
 * missing one, and the user's to fix: `details.fault`). Cached, so a repeat caller costs no
 * registry round trip.
 */
@Injectable()
export class ProviderCallerService {
  constructor(private readonly resolver: RegistryCredentialsResolver) {}

  async resolve(
    headers: IncomingHttpHeaders,
    route: { workspace?: string; resource?: string } = {},
  ): Promise<CallerProvider> {
    const caller = providerCaller(headers, route);
    const resolved = await this.resolver
      .resolveProvider({
        actor: { token: caller.token },
        workspace: caller.workspace,
        resource: caller.resource,
      })
      .catch((error: unknown) => {
        throw withCredentialsFault(error);
      });
    return { ...resolved, ...caller };
  }
}
