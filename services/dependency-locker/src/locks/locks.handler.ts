import { lockerContract, type LockTypescriptRequest } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { TypescriptLocks } from './typescript-locks.service.js';

/** `locker.*`: locks for scripts' dependencies. */
@Controller()
export class LocksHandler {
  constructor(private readonly typescript: TypescriptLocks) {}

  @HandleRequest(lockerContract.lockTypescript)
  lockTypescript(@Payload() request: LockTypescriptRequest) {
    return this.typescript.lock(request.requirements);
  }
}
