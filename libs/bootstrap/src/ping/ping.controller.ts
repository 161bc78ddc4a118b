import type { PingReply, RequestContract } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller, type Type } from '@nestjs/common';
import { DependencyChecks } from '../health/dependency-checks.service.js';
import { ProcessIdentity } from '../runtime/process-identity.js';

/**
 * The ping handler for this process's contract (`<root>.ping`, or `<root>.worker.ping` for a
 * worker). Made per process because a decorator takes its subject when the class is defined.
 */
export function createPingController(contract: RequestContract): Type<unknown> {
  @Controller()
  class PingController {
    constructor(
      private readonly identity: ProcessIdentity,
      private readonly dependencies: DependencyChecks,
    ) {}

    @HandleRequest(contract)
    async ping(): Promise<PingReply> {
      return {
        service: this.identity.processName,
        version: this.identity.version,
        instanceId: this.identity.instanceId,
        uptimeMs: this.identity.uptimeMs(),
        checks: await this.dependencies.snapshot(),
      };
    }
  }
  return PingController;
}
