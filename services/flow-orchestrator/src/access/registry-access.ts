import {
  createRegistryIdentityClient,
  type RegistryIdentityClient,
  type ScopeDomain,
} from '@flowmesh/contracts';
import { MeshClient } from '@flowmesh/messaging';
import { Injectable } from '@nestjs/common';
import type { Caller } from '../http/caller.js';

/** Whether the caller may read or write a path, as `registry.access.check` says, asked with their own token. */
@Injectable()
export class RegistryAccess {
  private readonly registry: RegistryIdentityClient;

  constructor(mesh: MeshClient) {
    this.registry = createRegistryIdentityClient(mesh);
  }

  async allowed(
    caller: Caller,
    path: string,
    action: 'read' | 'write',
    domain: ScopeDomain,
  ): Promise<boolean> {
    const reply = await this.registry.checkAccess({
      actor: caller.actor,
      workspace: caller.identity.workspace,
      path,
      action,
      domain,
    });
    return reply.allowed;
  }
}
