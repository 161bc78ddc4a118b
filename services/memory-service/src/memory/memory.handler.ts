import { memoryContract, type RequestOf } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { DeleteMemoryUseCase } from './delete-memory.use-case.js';
import { GetMemoryUseCase } from './get-memory.use-case.js';
import { ListMemoriesUseCase } from './list-memories.use-case.js';
import { LoadMemoryUseCase } from './load-memory.use-case.js';
import { resolveMemoryKey } from './memory-key.util.js';
import { SaveMemoryUseCase } from './save-memory.use-case.js';

/** Agent memory over NATS; the contract validated each payload before it gets here. */
@Controller()
export class MemoryHandler {
  constructor(
    private readonly loading: LoadMemoryUseCase,
    private readonly saving: SaveMemoryUseCase,
    private readonly deleting: DeleteMemoryUseCase,
    private readonly listing: ListMemoriesUseCase,
    private readonly getting: GetMemoryUseCase,
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
