import { orchestratorJobsContract as contract, type RequestOf } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { JobsApi } from './jobs-api.service.js';

/**
 * `orchestrator.job.*` over NATS: the same use cases as the HTTP and gRPC APIs (`JobsApi`), as
 * the caller whose `actor` token the registry vouches for.
 */
@Controller()
export class JobsHandler {
  constructor(private readonly api: JobsApi) {}

  @HandleRequest(contract.runFlow)
  runFlow(@Payload() req: RequestOf<typeof contract.runFlow>) {
    return this.api.runFlow(req);
  }

  @HandleRequest(contract.runScript)
  runScript(@Payload() req: RequestOf<typeof contract.runScript>) {
    return this.api.runScript(req);
  }

  @HandleRequest(contract.restartFlow)
  restartFlow(@Payload() req: RequestOf<typeof contract.restartFlow>) {
    return this.api.restartFlow(req);
  }

  @HandleRequest(contract.get)
  get(@Payload() req: RequestOf<typeof contract.get>) {
    return this.api.get(req);
  }

  @HandleRequest(contract.getResult)
  getResult(@Payload() req: RequestOf<typeof contract.getResult>) {
    return this.api.getResult(req);
  }

  @HandleRequest(contract.waitResult)
  waitResult(@Payload() req: RequestOf<typeof contract.waitResult>) {
    return this.api.waitResult(req);
  }

  @HandleRequest(contract.resultByNode)
  resultByNode(@Payload() req: RequestOf<typeof contract.resultByNode>) {
    return this.api.resultByNode(req);
  }

  @HandleRequest(contract.cancel)
  cancel(@Payload() req: RequestOf<typeof contract.cancel>) {
    return this.api.cancel(req);
  }

  @HandleRequest(contract.resume)
  resume(@Payload() req: RequestOf<typeof contract.resume>) {
    return this.api.resume(req);
  }

  @HandleRequest(contract.list)
  list(@Payload() req: RequestOf<typeof contract.list>) {
    return this.api.list(req);
  }

  @HandleRequest(contract.logs)
  logs(@Payload() req: RequestOf<typeof contract.logs>) {
    return this.api.logs(req);
  }
}
