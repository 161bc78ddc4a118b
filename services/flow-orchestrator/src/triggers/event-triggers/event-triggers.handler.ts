import { orchestratorEventTriggersContract as contract, type RequestOf } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { EventTriggersApi } from './event-triggers-api.service.js';

/** `orchestrator.event_trigger.*` over NATS: the same use cases as the HTTP API, as the `actor`. */
@Controller()
export class EventTriggersHandler {
  constructor(private readonly api: EventTriggersApi) {}

  @HandleRequest(contract.create)
  create(@Payload() req: RequestOf<typeof contract.create>) {
    return this.api.create(req);
  }

  @HandleRequest(contract.get)
  get(@Payload() req: RequestOf<typeof contract.get>) {
    return this.api.get(req);
  }

  @HandleRequest(contract.list)
  list(@Payload() req: RequestOf<typeof contract.list>) {
    return this.api.list(req);
  }

  @HandleRequest(contract.update)
  update(@Payload() req: RequestOf<typeof contract.update>) {
    return this.api.update(req);
  }

  @HandleRequest(contract.delete)
  delete(@Payload() req: RequestOf<typeof contract.delete>) {
    return this.api.delete(req);
  }

  @HandleRequest(contract.exists)
  exists(@Payload() req: RequestOf<typeof contract.exists>) {
    return this.api.exists(req);
  }

  @HandleRequest(contract.setMode)
  setMode(@Payload() req: RequestOf<typeof contract.setMode>) {
    return this.api.setMode(req);
  }
}
