import {
  createRegistryIdentityClient,
  createRegistryLocksClient,
  lockerContract,
  MeshError,
  type ReplyOf,
  type RequestOf,
  type RegistryIdentityClient,
  type RegistryLocksClient,
} from '@flowmesh/contracts';
import { HandleRequest, MeshClient } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';

/**
 * `locker.depmap.rebuild`: a workspace's items deployed before the locker ran (or while it was
 * away past the stream's retention) become known to it. The registry announces each again as a
 * deploy, which the locker handles as any deploy: code kept, edges rewritten by difference,
 * locked, cascades planned. Admins of the workspace only, as the registry says.
 */
@Controller()
export class RebuildDepmapHandler {
  private readonly identity: RegistryIdentityClient;
  private readonly registry: RegistryLocksClient;

  constructor(mesh: MeshClient) {
    this.identity = createRegistryIdentityClient(mesh);
    this.registry = createRegistryLocksClient(mesh);
  }

  @HandleRequest(lockerContract.rebuildDepmap)
  async rebuild(
    @Payload() req: RequestOf<typeof lockerContract.rebuildDepmap>,
  ): Promise<ReplyOf<typeof lockerContract.rebuildDepmap>> {
    const caller = await this.identity.whoami({ actor: req.actor, workspace: req.workspace });
    if (caller.kind !== 'user' || !caller.isAdmin)
      throw new MeshError(
        'PERMISSION_DENIED',
        `only an admin of ${req.workspace} rebuilds its dependency map`,
      );
    return this.registry.announceDeploys({ workspace: req.workspace });
  }
}
