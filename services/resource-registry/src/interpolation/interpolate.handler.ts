import { registryItemsContract as contract } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import type { z } from 'zod';
import { AccessService } from '../access/access.service.js';
import { InterpolationService } from './interpolation.service.js';

/** `registry.interpolate` over NATS. */
@Controller()
export class InterpolateHandler {
  constructor(
    private readonly access: AccessService,
    private readonly interpolation: InterpolationService,
  ) {}

  @HandleRequest(contract.interpolate)
  async interpolate(
    @Payload() req: z.output<typeof contract.interpolate.request>,
  ): Promise<{ value: unknown }> {
    return {
      value: await this.interpolation.interpolate(
        await this.access.authenticate(req.actor.token, req.workspace),
        req.value,
      ),
    };
  }
}
