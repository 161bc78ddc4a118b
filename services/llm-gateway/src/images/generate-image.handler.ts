import { gatewayContract, type RequestOf } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { GenerateImageService } from './generate-image.service.js';

/** Image generation over NATS: draw one, cancel one. */
@Controller()
export class GenerateImageHandler {
  constructor(private readonly images: GenerateImageService) {}

  @HandleRequest(gatewayContract.generateImage)
  generate(@Payload() request: RequestOf<typeof gatewayContract.generateImage>) {
    return this.images.generate(request);
  }

  @HandleRequest(gatewayContract.cancelImage)
  cancel(@Payload() request: RequestOf<typeof gatewayContract.cancelImage>) {
    return this.images.cancel(request.cancelId);
  }
}
