import { orchestratorSchedulesContract as contract, type RequestOf } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { SchedulesApi } from './schedules-api.service.js';

/** `orchestrator.schedule.*` over NATS: the same use cases as the HTTP routes, as the `actor`. */
@Controller()
export class SchedulesHandler {
  constructor(private readonly api: SchedulesApi) {}

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

  @HandleRequest(contract.setEnabled)
  setEnabled(@Payload() req: RequestOf<typeof contract.setEnabled>) {
    return this.api.setEnabled(req);
  }

  @HandleRequest(contract.preview)
  preview(@Payload() req: RequestOf<typeof contract.preview>) {
    return this.api.preview(req);
  }

  @HandleRequest(contract.exists)
  exists(@Payload() req: RequestOf<typeof contract.exists>) {
    return this.api.exists(req);
  }
}
