import { orchestratorJobsContract as contract } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import type { z } from 'zod';
import { JobsApi } from './jobs-api.service.js';

type Req<K extends keyof typeof contract> = z.output<(typeof contract)[K]['request']>;

/**
 * `orchestrator.job.*` over NATS: the same use cases as the HTTP and gRPC APIs (`JobsApi`), as
 * the caller whose `actor` token the registry vouches for.
 */
@Controller()
export class JobsHandler {
  constructor(private readonly api: JobsApi) {}

  @HandleRequest(contract.runFlow)
  runFlow(@Payload() req: Req<'runFlow'>) {
    return this.api.runFlow(req);
  }

  @HandleRequest(contract.runScript)
  runScript(@Payload() req: Req<'runScript'>) {
    return this.api.runScript(req);
  }

  @HandleRequest(contract.get)
  get(@Payload() req: Req<'get'>) {
    return this.api.get(req);
  }

  @HandleRequest(contract.getResult)
  getResult(@Payload() req: Req<'getResult'>) {
    return this.api.getResult(req);
  }

  @HandleRequest(contract.waitResult)
  waitResult(@Payload() req: Req<'waitResult'>) {
    return this.api.waitResult(req);
  }

  @HandleRequest(contract.resultByNode)
  resultByNode(@Payload() req: Req<'resultByNode'>) {
    return this.api.resultByNode(req);
  }

  @HandleRequest(contract.cancel)
  cancel(@Payload() req: Req<'cancel'>) {
    return this.api.cancel(req);
  }

  @HandleRequest(contract.resume)
  resume(@Payload() req: Req<'resume'>) {
    return this.api.resume(req);
  }

  @HandleRequest(contract.list)
  list(@Payload() req: Req<'list'>) {
    return this.api.list(req);
  }

  @HandleRequest(contract.logs)
  logs(@Payload() req: Req<'logs'>) {
    return this.api.logs(req);
  }
}
