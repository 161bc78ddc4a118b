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
import { InterpolationService } from '../interpolation/interpolation.service.js';
import { ReadResourcesUseCase } from './read-resources.use-case.js';
import {
  CreateResourceBodySchema,
  ListResourcesQuerySchema,
  UpdateResourceBodySchema,
  UpdateResourceValueBodySchema,
} from './resources.http.js';
import { WriteResourcesUseCase } from './write-resources.use-case.js';

/** `/api/w/:workspace/resources/...` as Windmill's REST API; `*path` holds slashes (`u/alice/db`). */
@Controller('api/w/:workspace/resources')
@UseGuards(BearerAuthGuard)
export class ResourcesController {
  constructor(
    private readonly read: ReadResourcesUseCase,
    private readonly write: WriteResourcesUseCase,
    private readonly interpolation: InterpolationService,
  ) {}

  @Get('list')
  list(
    @CurrentIdentity() identity: CallerIdentity,
    @Query(validateWith(ListResourcesQuerySchema, 'query')) query: z.output<typeof ListResourcesQuerySchema>,
  ) {
    return this.read.list(identity, { resourceTypes: query.resource_type, pathPrefix: query.path_start });
  }

  @Get('get/*path')
  get(@CurrentIdentity() identity: CallerIdentity, @Param('path', itemPath) path: string) {
    return this.read.get(identity, path);
  }

  @Get('get_value/*path')
  async getValue(@CurrentIdentity() identity: CallerIdentity, @Param('path', itemPath) path: string) {
    return jsonBody((await this.read.get(identity, path)).value);
  }

  @Get('get_value_interpolated/*path')
  async getValueInterpolated(
    @CurrentIdentity() identity: CallerIdentity,
    @Param('path', itemPath) path: string,
  ) {
    return jsonBody(await this.interpolation.resourceValue(identity, path));
  }

  @Get('exists/*path')
  async exists(@CurrentIdentity() identity: CallerIdentity, @Param('path', itemPath) path: string) {
    return jsonBody(await this.read.exists(identity, path));
  }

  @Post('create')
  @Header('content-type', 'text/plain; charset=utf-8')
  async create(
    @CurrentIdentity() identity: CallerIdentity,
    @Body(validateWith(CreateResourceBodySchema)) body: z.output<typeof CreateResourceBodySchema>,
  ) {
    const created = await this.write.create(identity, {
      path: body.path,
      resourceType: body.resource_type,
      value: body.value,
      description: body.description,
    });
    return created.path;
  }

  @Post('update/*path')
  @HttpCode(200)
  @Header('content-type', 'text/plain; charset=utf-8')
  async update(
    @CurrentIdentity() identity: CallerIdentity,
    @Param('path', itemPath) path: string,
    @Body(validateWith(UpdateResourceBodySchema)) body: z.output<typeof UpdateResourceBodySchema>,
  ) {
    return (
      await this.write.update(identity, path, {
        newPath: body.path,
        value: body.value,
        description: body.description,
      })
    ).path;
  }

  @Post('update_value/*path')
  @HttpCode(200)
  @Header('content-type', 'text/plain; charset=utf-8')
  async updateValue(
    @CurrentIdentity() identity: CallerIdentity,
    @Param('path', itemPath) path: string,
    @Body(validateWith(UpdateResourceValueBodySchema)) body: z.output<typeof UpdateResourceValueBodySchema>,
  ) {
    return (await this.write.update(identity, path, { value: body.value })).path;
  }

  @Delete('delete/*path')
  @Header('content-type', 'text/plain; charset=utf-8')
  async delete(@CurrentIdentity() identity: CallerIdentity, @Param('path', itemPath) path: string) {
    await this.write.delete(identity, path);
    return path;
  }
}
