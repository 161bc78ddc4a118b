import { registryLocksContract, type WriteLocksReply, type WriteLocksRequest } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { WriteLocksUseCase } from './write-locks.use-case.js';

/** `registry.lock.*`: locks dependency-locker writes back into scripts, flows and agents. */
@Controller()
export class LocksHandler {
  constructor(private readonly locks: WriteLocksUseCase) {}

  @HandleRequest(registryLocksContract.writeLocks)
  write(@Payload() request: WriteLocksRequest): Promise<WriteLocksReply> {
    return this.locks.write(request);
  }
}
