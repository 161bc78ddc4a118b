import { ResourceTypeNameSchema, type CallerIdentity } from '@flowmesh/contracts';
import { validateWith } from '@flowmesh/http';
import { Body, Controller, Delete, Get, Header, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import type { z } from 'zod';
import { BearerAuthGuard } from '../auth/bearer-auth.guard.js';
import { CurrentIdentity } from '../auth/current-identity.decorator.js';
import { CreateResourceTypeBodySchema, UpdateResourceTypeBodySchema } from './resource-types.http.js';
import { ResourceTypesService } from './resource-types.service.js';

const typeName = validateWith(ResourceTypeNameSchema, 'resource type name');

/** `/api/w/:workspace/resources/type/...` as Windmill's REST API. */
@Controller('api/w/:workspace/resources/type')
@UseGuards(BearerAuthGuard)
export class ResourceTypesController {
  constructor(private readonly types: ResourceTypesService) {}

  @Get('list')
  list(@CurrentIdentity() identity: CallerIdentity) {
    return this.types.list(identity);
  }

  @Get('get/:name')
  get(@CurrentIdentity() identity: CallerIdentity, @Param('name', typeName) name: string) {
    return this.types.get(identity, name);
  }

  @Post('create')
  @Header('content-type', 'text/plain; charset=utf-8')
  async create(
    @CurrentIdentity() identity: CallerIdentity,
    @Body(validateWith(CreateResourceTypeBodySchema)) body: z.output<typeof CreateResourceTypeBodySchema>,
  ) {
    return (await this.types.create(identity, body)).name;
  }

  @Post('update/:name')
  @HttpCode(200)
  @Header('content-type', 'text/plain; charset=utf-8')
  async update(
    @CurrentIdentity() identity: CallerIdentity,
    @Param('name', typeName) name: string,
    @Body(validateWith(UpdateResourceTypeBodySchema)) body: z.output<typeof UpdateResourceTypeBodySchema>,
  ) {
    return (await this.types.update(identity, name, body)).name;
  }

  @Delete('delete/:name')
  @Header('content-type', 'text/plain; charset=utf-8')
  async delete(@CurrentIdentity() identity: CallerIdentity, @Param('name', typeName) name: string) {
    await this.types.delete(identity, name);
    return name;
  }
}
