import {
  registryLocksContract,
  type AnnounceDeploysReply,
  type RequestOf,
  type RevalidateAgentToolsReply,
  type RevalidateAgentToolsRequest,
  type RevalidateFlowToolInputsReply,
  type RevalidateFlowToolInputsRequest,
  type WriteLocksReply,
  type WriteLocksRequest,
} from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { AnnounceDeploysUseCase } from './announce-deploys.use-case.js';
import { RevalidateAgentToolsUseCase } from './revalidate-agent-tools.use-case.js';
import { RevalidateFlowToolInputsUseCase } from './revalidate-flow-tool-inputs.use-case.js';
import { WriteLocksUseCase } from './write-locks.use-case.js';

/** `registry.lock.*`: locks dependency-locker writes back into scripts, flows and agents. */
@Controller()
export class LocksHandler {
  constructor(
    private readonly locks: WriteLocksUseCase,
    private readonly revalidation: RevalidateAgentToolsUseCase,
    private readonly flowRevalidation: RevalidateFlowToolInputsUseCase,
    private readonly announcer: AnnounceDeploysUseCase,
  ) {}

  @HandleRequest(registryLocksContract.writeLocks)
  write(@Payload() request: WriteLocksRequest): Promise<WriteLocksReply> {
    return this.locks.write(request);
  }

  @HandleRequest(registryLocksContract.revalidateAgentTools)
  revalidateAgentTools(@Payload() request: RevalidateAgentToolsRequest): Promise<RevalidateAgentToolsReply> {
    return this.revalidation.revalidate(request);
  }

  @HandleRequest(registryLocksContract.revalidateFlowToolInputs)
  revalidateFlowToolInputs(
    @Payload() request: RevalidateFlowToolInputsRequest,
  ): Promise<RevalidateFlowToolInputsReply> {
    return this.flowRevalidation.revalidate(request);
  }

  @HandleRequest(registryLocksContract.announceDeploys)
  announceDeploys(
    @Payload() request: RequestOf<typeof registryLocksContract.announceDeploys>,
  ): Promise<AnnounceDeploysReply> {
    return this.announcer.announce(request.workspace);
  }
}
