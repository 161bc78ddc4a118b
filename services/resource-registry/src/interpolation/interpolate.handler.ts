import { registryItemsContract as contract, type CallerIdentity, type RequestOf } from '@flowmesh/contracts';
import { HandleRequest, MeshCaller } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { InterpolationService } from './interpolation.service.js';

/** `registry.interpolate` over NATS. */
@Controller()
export class InterpolateHandler {
  constructor(private readonly interpolation: InterpolationService) {}

  @HandleRequest(contract.interpolate)
  async interpolate(
    @Payload() req: RequestOf<typeof contract.interpolate>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<{ value: unknown }> {
    return {
      value: await this.interpolation.interpolate(identity, req.value),
    };
  }
}
