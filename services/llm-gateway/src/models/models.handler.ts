import { gatewayContract, type RequestOf } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { contextWindowOf } from './context-window.table.js';
import { ListModelsService } from './list-models.service.js';

/** Model lists and context windows over NATS. */
@Controller()
export class ModelsHandler {
  constructor(private readonly listing: ListModelsService) {}

  @HandleRequest(gatewayContract.listModels)
  list(@Payload() request: RequestOf<typeof gatewayContract.listModels>) {
    return this.listing.list(request);
  }

  @HandleRequest(gatewayContract.contextWindow)
  contextWindow(@Payload() request: RequestOf<typeof gatewayContract.contextWindow>) {
    return contextWindowOf(request.model, request.override);
  }
}
