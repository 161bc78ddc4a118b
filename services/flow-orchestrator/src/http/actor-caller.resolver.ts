import type { Actor } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import type { Caller } from './caller.js';
import { RegistryAuthenticator } from './registry-authenticator.js';

/** A mesh request's `actor` token as the caller in its workspace, vouched for by the registry. */
@Injectable()
export class ActorCallerResolver {
  constructor(private readonly authenticator: RegistryAuthenticator) {}

  async callerOf(request: { readonly actor: Actor; readonly workspace: string }): Promise<Caller> {
    return {
      identity: await this.authenticator.authenticate(request.actor.token, request.workspace),
      actor: request.actor,
    };
  }
}
