import { gatewayContract } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import type { z } from 'zod';
import { GenerateImageService } from './generate-image.service.js';

/** Image generation over NATS: draw one, cancel one. */
@Controller()
export class GenerateImageHandler {
  constructor(private readonly images: GenerateImageService) {}

  @HandleRequest(gatewayContract.generateImage)
  generate(@Payload() request: z.output<typeof gatewayContract.generateImage.request>) {
    return this.images.generate(request);
  }

  @HandleRequest(gatewayContract.cancelImage)
  cancel(@Payload() request: z.output<typeof gatewayContract.cancelImage.request>) {
    return this.images.cancel(request.cancelId);
  }
}
