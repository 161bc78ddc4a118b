import type { CallerIdentity } from '@flowmesh/contracts';
import { itemPath, jsonBody, validateWith } from '@flowmesh/http';
import {
  Body,
  Controller,
  Delete,
  Get,
  Header,
  HttpCode,
  Param,
  Post,
  Query,
  UseGuards,
} from '@nestjs/common';
import type { z } from 'zod';
import { BearerAuthGuard } from '../auth/bearer-auth.guard.js';
import { CurrentIdentity } from '../auth/current-identity.decorator.js';
import { flowDefinition } from './flows.handler.js';
import {
  CreateFlowBodySchema,
  FlowVersionParamSchema,
  ListFlowsQuerySchema,
  UpdateFlowBodySchema,
} from './flows.http.js';
import { ReadFlowsUseCase } from './read-flows.use-case.js';
import { WriteFlowsUseCase } from './write-flows.use-case.js';

const flowVersion = validateWith(FlowVersionParamSchema, 'flow version');

/** `/api/w/:workspace/flows/...` as Windmill's REST API. */
@Controller('api/w/:workspace/flows')
@UseGuards(BearerAuthGuard)
export class FlowsController {
  constructor(
    private readonly read: ReadFlowsUseCase,
    private readonly write: WriteFlowsUseCase,
  ) {}

  @Get('list')
  list(
    @CurrentIdentity() identity: CallerIdentity,
    @Query(validateWith(ListFlowsQuerySchema, 'query')) query: z.output<typeof ListFlowsQuerySchema>,
  ) {
    return this.read.list(identity, query.path_start);
  }

  // Before `get/*path`, which would otherwise take `v/3/p/u/alice/x` as a path.
  @Get('get/v/:version/p/*path')
  getVersion(
    @CurrentIdentity() identity: CallerIdentity,
    @Param('version', flowVersion) version: number,
    @Param('path', itemPath) path: string,
  ) {
    return this.read.get(identity, path, version);
  }

  @Get('get/*path')
  get(@CurrentIdentity() identity: CallerIdentity, @Param('path', itemPath) path: string) {
    return this.read.get(identity, path);
  }

  @Get('exists/*path')
  async exists(@CurrentIdentity() identity: CallerIdentity, @Param('path', itemPath) path: string) {
    return jsonBody(await this.read.exists(identity, path));
  }

  @Get('history/p/*path')
  history(@CurrentIdentity() identity: CallerIdentity, @Param('path', itemPath) path: string) {
    return this.read.listVersions(identity, path);
  }

  @Post('create')
  @Header('content-type', 'text/plain; charset=utf-8')
  async create(
    @CurrentIdentity() identity: CallerIdentity,
    @Body(validateWith(CreateFlowBodySchema)) body: z.output<typeof CreateFlowBodySchema>,
  ) {
    return (await this.write.create(identity, body.path, flowDefinition(body))).path;
  }

  @Post('update/*path')
  @HttpCode(200)
  @Header('content-type', 'text/plain; charset=utf-8')
  async update(
    @CurrentIdentity() identity: CallerIdentity,
    @Param('path', itemPath) path: string,
    @Body(validateWith(UpdateFlowBodySchema)) body: z.output<typeof UpdateFlowBodySchema>,
  ) {
    return (await this.write.update(identity, path, { ...flowDefinition(body), newPath: body.path })).path;
  }

  @Delete('delete/*path')
  @Header('content-type', 'text/plain; charset=utf-8')
  async delete(@CurrentIdentity() identity: CallerIdentity, @Param('path', itemPath) path: string) {
    await this.write.delete(identity, path);
    return path;
  }
}
