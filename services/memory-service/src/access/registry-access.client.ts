import { createRegistryIdentityClient, type RegistryIdentityClient } from '@flowmesh/contracts';
import { MeshClient } from '@flowmesh/messaging';
import { Injectable } from '@nestjs/common';
import { RegistryAccess, type AccessQuery } from './registry-access.port.js';

/** `RegistryAccess` over NATS: `registry.access.check` and `registry.auth.authenticate`. */
@Injectable()
export class RegistryAccessClient extends RegistryAccess {
  private readonly registry: RegistryIdentityClient;

  constructor(mesh: MeshClient) {
    super();
    this.registry = createRegistryIdentityClient(mesh);
  }

  checkAccess(query: AccessQuery): Promise<{ allowed: boolean }> {
    return this.registry.checkAccess({ ...query, actor: { ...query.actor } });
  }

  authenticate(request: { token: string; workspace: string }): Promise<unknown> {
    return this.registry.authenticate(request);
  }
}
