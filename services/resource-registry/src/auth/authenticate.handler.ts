import { registryIdentityContract as contract, type CallerIdentity } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import type { z } from 'zod';
import { AccessService } from '../access/access.service.js';

@Controller()
export class AuthenticateHandler {
  constructor(private readonly access: AccessService) {}

  @HandleRequest(contract.authenticate)
  authenticate(@Payload() req: z.output<typeof contract.authenticate.request>): Promise<CallerIdentity> {
    return this.access.authenticateWithExpiry(req.token, req.workspace);
  }
}
