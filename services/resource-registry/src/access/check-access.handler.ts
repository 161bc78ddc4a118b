import { registryIdentityContract as contract, type RequestOf } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { AccessService } from './access.service.js';

@Controller()
export class CheckAccessHandler {
  constructor(private readonly access: AccessService) {}

  @HandleRequest(contract.checkAccess)
  check(@Payload() req: RequestOf<typeof contract.checkAccess>): Promise<{ allowed: boolean }> {
    return this.access.check(req.actor.token, req.workspace, req.path, req.action, req.domain);
  }
}
