import {
  DeleteMemoryByIdRequestSchema,
  GetMemoryRequestSchema,
  ListMemoriesRequestSchema,
  type Actor,
} from '@flowmesh/contracts';
import { Controller, Delete, Get, Param, Query } from '@nestjs/common';
import { BearerActor } from '../http/bearer-actor.decorator.js';
import { ListQuerySchema, parseHttpRequest } from '../http/http-request.util.js';
import { DeleteMemoryUseCase } from './delete-memory.use-case.js';
import { GetMemoryUseCase } from './get-memory.use-case.js';
import { ListMemoriesUseCase } from './list-memories.use-case.js';

/** Admin HTTP API of agent memories; every answer is limited to flows the bearer may read. */
@Controller('api/w/:workspace/ai_memory')
export class MemoryHttpController {
  constructor(
    private readonly listing: ListMemoriesUseCase,
    private readonly getting: GetMemoryUseCase,
    private readonly deleting: DeleteMemoryUseCase,
  ) {}

  @Get('list')
  list(@BearerActor() actor: Actor, @Param('workspace') workspace: string, @Query() query: unknown) {
    const { order: _order, ...paging } = parseHttpRequest(ListQuerySchema, query);
    return this.listing.list(parseHttpRequest(ListMemoriesRequestSchema, { actor, workspace, ...paging }));
  }

  @Get('get/:memoryId/:stepId')
  get(@BearerActor() actor: Actor, @Param() params: { workspace: string; memoryId: string; stepId: string }) {
    return this.getting.get(parseHttpRequest(GetMemoryRequestSchema, { actor, ...params }));
  }

  @Delete('delete/:memoryId')
  delete(@BearerActor() actor: Actor, @Param() params: { workspace: string; memoryId: string }) {
    return this.deleting.delete(parseHttpRequest(DeleteMemoryByIdRequestSchema, { actor, ...params }));
  }
}
