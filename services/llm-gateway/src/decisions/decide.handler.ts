import { gatewayContract } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import type { z } from 'zod';
import { DecideService } from './decide.service.js';

/** Decision models over NATS. */
@Controller()
export class DecideHandler {
  constructor(private readonly decisions: DecideService) {}

  @HandleRequest(gatewayContract.decide)
  decide(@Payload() request: z.output<typeof gatewayContract.decide.request>) {
    return this.decisions.decide(request);
  }
}
