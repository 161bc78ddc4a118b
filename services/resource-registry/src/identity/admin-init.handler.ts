import {
  registryIdentityContract as contract,
  type AdminInitReply,
  type RequestOf,
} from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { AdminBootstrapService } from './admin-bootstrap.service.js';

/**
 * `flowmesh admin init`. Unauthenticated by design: it can only ever create the first admin of an
 * empty database, and NATS credentials decide who may reach the subject.
 */
@Controller()
export class AdminInitHandler {
  constructor(private readonly bootstrap: AdminBootstrapService) {}

  @HandleRequest(contract.adminInit)
  init(@Payload() req: RequestOf<typeof contract.adminInit>): Promise<AdminInitReply> {
    return this.bootstrap.init(req.adminToken);
  }
}
