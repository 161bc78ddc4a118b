import { memoryContract } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import type { z } from 'zod';
import { DeleteMemoryService } from './delete-memory.service.js';
import { GetMemoryService } from './get-memory.service.js';
import { ListMemoriesService } from './list-memories.service.js';
import { LoadMemoryService } from './load-memory.service.js';
import { resolveMemoryKey } from './memory-key.util.js';
import { SaveMemoryService } from './save-memory.service.js';

type Request<K extends keyof typeof memoryContract> = z.output<(typeof memoryContract)[K]['request']>;

/** Agent memory over NATS; the contract validated each payload before it gets here. */
@Controller()
export class MemoryHandler {
  constructor(
    private readonly loading: LoadMemoryService,
    private readonly saving: SaveMemoryService,
    private readonly deleting: DeleteMemoryService,
    private readonly listing: ListMemoriesService,
    private readonly getting: GetMemoryService,
  ) {}

  @HandleRequest(memoryContract.load)
  load(@Payload() request: Request<'load'>) {
    return this.loading.load(request);
  }

  @HandleRequest(memoryContract.save)
  save(@Payload() request: Request<'save'>) {
    return this.saving.save(request);
  }

  @HandleRequest(memoryContract.delete)
  delete(@Payload() request: Request<'delete'>) {
    return this.deleting.deleteByKey(request);
  }

  @HandleRequest(memoryContract.deleteById)
  deleteById(@Payload() request: Request<'deleteById'>) {
    return this.deleting.delete(request);
  }

  @HandleRequest(memoryContract.list)
  list(@Payload() request: Request<'list'>) {
    return this.listing.list(request);
  }

  @HandleRequest(memoryContract.get)
  get(@Payload() request: Request<'get'>) {
    return this.getting.get(request);
  }

  @HandleRequest(memoryContract.resolveKey)
  resolveKey(@Payload() request: Request<'resolveKey'>) {
    return resolveMemoryKey(request.workspace, request.flowPath, request.memoryKey);
  }
}
