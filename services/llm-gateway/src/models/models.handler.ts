import { gatewayContract } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import type { z } from 'zod';
import { contextWindowOf } from './context-window.table.js';
import { ListModelsService } from './list-models.service.js';

type Request<K extends keyof typeof gatewayContract> = z.output<(typeof gatewayContract)[K]['request']>;

/** Model lists and context windows over NATS. */
@Controller()
export class ModelsHandler {
  constructor(private readonly listing: ListModelsService) {}

  @HandleRequest(gatewayContract.listModels)
  list(@Payload() request: Request<'listModels'>) {
    return this.listing.list(request);
  }

  @HandleRequest(gatewayContract.contextWindow)
  contextWindow(@Payload() request: Request<'contextWindow'>) {
    return contextWindowOf(request.model, request.override);
  }
}
