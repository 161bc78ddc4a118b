import {
  registryDeployContract as contract,
  type CallerIdentity,
  type ReplyOf,
  type RequestOf,
} from '@flowmesh/contracts';
import { HandleRequest, MeshCaller } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { DeployService } from './deploy.service.js';

@Controller()
export class DeployHandler {
  constructor(private readonly deploy: DeployService) {}

  @HandleRequest(contract.plan)
  async plan(
    @Payload() req: RequestOf<typeof contract.plan>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<ReplyOf<typeof contract.plan>> {
    return this.deploy.plan(identity, req.actor.token, req);
  }

  @HandleRequest(contract.apply)
  async apply(
    @Payload() req: RequestOf<typeof contract.apply>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<ReplyOf<typeof contract.apply>> {
    return this.deploy.apply(identity, req.actor.token, req);
  }
}
