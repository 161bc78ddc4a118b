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
import { ReadVariablesUseCase } from './read-variables.use-case.js';
import {
  CreateVariableBodySchema,
  GetVariableQuerySchema,
  ListVariablesQuerySchema,
  UpdateVariableBodySchema,
} from './variables.http.js';
import { WriteVariablesUseCase } from './write-variables.use-case.js';

/** `/api/w/:workspace/variables/...` as Windmill's REST API. */
@Controller('api/w/:workspace/variables')
@UseGuards(BearerAuthGuard)
export class VariablesController {
  constructor(
    private readonly read: ReadVariablesUseCase,
    private readonly write: WriteVariablesUseCase,
  ) {}

  @Get('list')
  list(
    @CurrentIdentity() identity: CallerIdentity,
    @Query(validateWith(ListVariablesQuerySchema, 'query')) query: z.output<typeof ListVariablesQuerySchema>,
  ) {
    return this.read.list(identity, query.path_start);
  }

  @Get('get/*path')
  get(
    @CurrentIdentity() identity: CallerIdentity,
    @Param('path', itemPath) path: string,
    @Query(validateWith(GetVariableQuerySchema, 'query')) query: z.output<typeof GetVariableQuerySchema>,
  ) {
    return this.read.get(identity, path, query.decrypt_secret ?? true);
  }

  @Get('get_value/*path')
  async getValue(@CurrentIdentity() identity: CallerIdentity, @Param('path', itemPath) path: string) {
    return jsonBody(await this.read.getValue(identity, path));
  }

  @Get('exists/*path')
  async exists(@CurrentIdentity() identity: CallerIdentity, @Param('path', itemPath) path: string) {
    return jsonBody(await this.read.exists(identity, path));
  }

  @Post('create')
  @Header('content-type', 'text/plain; charset=utf-8')
  async create(
    @CurrentIdentity() identity: CallerIdentity,
    @Body(validateWith(CreateVariableBodySchema)) body: z.output<typeof CreateVariableBodySchema>,
  ) {
    const created = await this.write.create(identity, {
      path: body.path,
      value: body.value,
      isSecret: body.is_secret,
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
    @Body(validateWith(UpdateVariableBodySchema)) body: z.output<typeof UpdateVariableBodySchema>,
  ) {
    return (
      await this.write.update(identity, path, {
        newPath: body.path,
        value: body.value,
        isSecret: body.is_secret,
        description: body.description,
      })
    ).path;
  }

  @Delete('delete/*path')
  @Header('content-type', 'text/plain; charset=utf-8')
  async delete(@CurrentIdentity() identity: CallerIdentity, @Param('path', itemPath) path: string) {
    await this.write.delete(identity, path);
    return path;
  }
}
