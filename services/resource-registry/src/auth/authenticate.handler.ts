import {
  registryIdentityContract as contract,
  type CallerIdentity,
  type RequestOf,
} from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { AccessService } from '../access/access.service.js';

@Controller()
export class AuthenticateHandler {
  constructor(private readonly access: AccessService) {}

  @HandleRequest(contract.authenticate)
  authenticate(@Payload() req: RequestOf<typeof contract.authenticate>): Promise<CallerIdentity> {
    return this.access.authenticateWithExpiry(req.token, req.workspace);
  }
}
