import { memoryContract, type RequestOf } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { DeleteMemoryService } from './delete-memory.service.js';
import { GetMemoryService } from './get-memory.service.js';
import { ListMemoriesService } from './list-memories.service.js';
import { LoadMemoryService } from './load-memory.service.js';
import { resolveMemoryKey } from './memory-key.util.js';
import { SaveMemoryService } from './save-memory.service.js';

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
  load(@Payload() request: RequestOf<typeof memoryContract.load>) {
    return this.loading.load(request);
  }

  @HandleRequest(memoryContract.save)
  save(@Payload() request: RequestOf<typeof memoryContract.save>) {
    return this.saving.save(request);
  }

  @HandleRequest(memoryContract.delete)
  delete(@Payload() request: RequestOf<typeof memoryContract.delete>) {
    return this.deleting.deleteByKey(request);
  }

  @HandleRequest(memoryContract.deleteById)
  deleteById(@Payload() request: RequestOf<typeof memoryContract.deleteById>) {
    return this.deleting.delete(request);
  }

  @HandleRequest(memoryContract.list)
  list(@Payload() request: RequestOf<typeof memoryContract.list>) {
    return this.listing.list(request);
  }

  @HandleRequest(memoryContract.get)
  get(@Payload() request: RequestOf<typeof memoryContract.get>) {
    return this.getting.get(request);
  }

  @HandleRequest(memoryContract.resolveKey)
  resolveKey(@Payload() request: RequestOf<typeof memoryContract.resolveKey>) {
    return resolveMemoryKey(request.workspace, request.flowPath, request.memoryKey);
  }
}
