import { memoryContract, type RequestOf } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { AcquireMemoryLockUseCase } from './acquire-memory-lock.use-case.js';
import { MemoryLockRepository } from './memory-lock.repository.js';

/** Memory tickets over NATS: agent-runtime asks, renews and releases them for its steps. */
@Controller()
export class MemoryLockHandler {
  constructor(
    private readonly acquiring: AcquireMemoryLockUseCase,
    private readonly locks: MemoryLockRepository,
  ) {}

  @HandleRequest(memoryContract.acquireLock)
  acquire(@Payload() request: RequestOf<typeof memoryContract.acquireLock>) {
    return this.acquiring.acquire(request);
  }

  @HandleRequest(memoryContract.renewLocks)
  async renew(@Payload() request: RequestOf<typeof memoryContract.renewLocks>) {
    return { renewed: await this.locks.renew(request.jobIds, request.leaseMs) };
  }

  @HandleRequest(memoryContract.releaseLocks)
  async release(@Payload() request: RequestOf<typeof memoryContract.releaseLocks>) {
    return { released: await this.locks.release(request.jobIds) };
  }
}
