import { gatewayContract, type RequestOf } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { EmbedService } from './embed.service.js';

/** Embeddings over NATS. */
@Controller()
export class EmbedHandler {
  constructor(private readonly embedding: EmbedService) {}

  @HandleRequest(gatewayContract.embed)
  embed(@Payload() request: RequestOf<typeof gatewayContract.embed>) {
    return this.embedding.embed(request);
  }
}
