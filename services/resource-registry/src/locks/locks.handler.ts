import {
  registryLocksContract,
  type AnnounceDeploysReply,
  type RevalidateAgentToolsReply,
  type RevalidateAgentToolsRequest,
  type WriteLocksReply,
  type WriteLocksRequest,
} from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { AnnounceDeploysService } from './announce-deploys.service.js';
import { RevalidateAgentToolsService } from './revalidate-agent-tools.service.js';
import { WriteLocksService } from './write-locks.service.js';

/** `registry.lock.*`: locks dependency-locker writes back into scripts, flows and agents. */
@Controller()
export class LocksHandler {
  constructor(
    private readonly locks: WriteLocksService,
    private readonly revalidation: RevalidateAgentToolsService,
    private readonly announcer: AnnounceDeploysService,
  ) {}

  @HandleRequest(registryLocksContract.writeLocks)
  write(@Payload() request: WriteLocksRequest): Promise<WriteLocksReply> {
    return this.locks.write(request);
  }

  @HandleRequest(registryLocksContract.revalidateAgentTools)
  revalidateAgentTools(@Payload() request: RevalidateAgentToolsRequest): Promise<RevalidateAgentToolsReply> {
    return this.revalidation.revalidate(request);
  }

  @HandleRequest(registryLocksContract.announceDeploys)
  announceDeploys(@Payload() request: { workspace: string }): Promise<AnnounceDeploysReply> {
    return this.announcer.announce(request.workspace);
  }
}
