import { gatewayContract, type RequestOf } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { DecideService } from './decide.service.js';

/** Decision models over NATS. */
@Controller()
export class DecideHandler {
  constructor(private readonly decisions: DecideService) {}

  @HandleRequest(gatewayContract.decide)
  decide(@Payload() request: RequestOf<typeof gatewayContract.decide>) {
    return this.decisions.decide(request);
  }
}
