import {
  HttpTriggerMethodSchema,
  HttpTriggerModeSchema,
  NewHttpTriggerSchema,
  type HttpTrigger,
  type NewHttpTrigger,
} from '@flowmesh/contracts';
import { itemPath, validateWith } from '@flowmesh/http';
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
import { z } from 'zod';
import { BearerAuthGuard } from '../../http/bearer-auth.guard.js';
import { requestFieldsOf, type Caller } from '../../http/caller.js';
import { CurrentCaller } from '../../http/current-caller.decorator.js';
import { HttpTriggersApi } from './http-triggers-api.service.js';

const flag = z
  .enum(['true', 'false'], { error: 'must be true or false' })
  .transform((value) => value === 'true');

/** Windmill's `http_triggers/list` query. */
const ListQuerySchema = z.looseObject({
  page: z.coerce.number().int().min(1).optional(),
  per_page: z.coerce.number().int().min(1).max(1_000).optional(),
  path: z.string().max(255).optional(),
  is_flow: flag.optional(),
  path_start: z.string().max(255).optional(),
});

const SetEnabledBodySchema = z.looseObject({ enabled: z.boolean({ error: 'must be true or false' }) });
const SetModeBodySchema = z.looseObject({ mode: HttpTriggerModeSchema });
const RouteExistsBodySchema = z.looseObject({
  route_path: z.string().min(1).max(255),
  http_method: HttpTriggerMethodSchema,
  trigger_path: z.string().optional(),
  workspaced_route: z.boolean().nullish(),
});

const triggerBody = validateWith(NewHttpTriggerSchema);
const text = 'text/plain; charset=utf-8';

/**
 * Windmill's HTTP triggers API, `/api/w/:workspace/http_triggers/...`, with a bearer token: the
 * answers Windmill gives (the path as text after create and update, a JSON list, a JSON bool).
 */
@Controller('api/w/:workspace/http_triggers')
@UseGuards(BearerAuthGuard)
export class HttpTriggersController {
  constructor(private readonly api: HttpTriggersApi) {}

  @Post('create')
  @Header('content-type', text)
  async create(@CurrentCaller() caller: Caller, @Body(triggerBody) trigger: NewHttpTrigger): Promise<string> {
    return (await this.api.create({ ...requestFieldsOf(caller), trigger })).path;
  }

  @Get('list')
  async list(
    @CurrentCaller() caller: Caller,
    @Query(validateWith(ListQuerySchema, 'query')) query: z.output<typeof ListQuerySchema>,
  ): Promise<HttpTrigger[]> {
    const { triggers } = await this.api.list({
      ...requestFieldsOf(caller),
      ...(query.page === undefined ? {} : { page: query.page }),
      ...(query.per_page === undefined ? {} : { per_page: query.per_page }),
      ...(query.path === undefined ? {} : { path: query.path }),
      ...(query.is_flow === undefined ? {} : { is_flow: query.is_flow }),
      ...(query.path_start === undefined ? {} : { path_start: query.path_start }),
    });
    return triggers;
  }

  @Get('get/*path')
  get(@CurrentCaller() caller: Caller, @Param('path', itemPath) path: string): Promise<HttpTrigger> {
    return this.api.get({ ...requestFieldsOf(caller), path });
  }

  @Post('update/*path')
  @HttpCode(200)
  @Header('content-type', text)
  async update(
    @CurrentCaller() caller: Caller,
    @Param('path', itemPath) path: string,
    @Body(triggerBody) trigger: NewHttpTrigger,
  ): Promise<string> {
    return (await this.api.update({ ...requestFieldsOf(caller), path, trigger })).path;
  }

  @Delete('delete/*path')
  @Header('content-type', text)
  async delete(@CurrentCaller() caller: Caller, @Param('path', itemPath) path: string): Promise<string> {
    await this.api.delete({ ...requestFieldsOf(caller), path });
    return `HTTP route ${path} deleted`;
  }

  @Get('exists/*path')
  @Header('content-type', 'application/json')
  async exists(@CurrentCaller() caller: Caller, @Param('path', itemPath) path: string): Promise<boolean> {
    return (await this.api.exists({ ...requestFieldsOf(caller), path })).exists;
  }

  @Post('setenabled/*path')
  @HttpCode(200)
  @Header('content-type', text)
  async setEnabled(
    @CurrentCaller() caller: Caller,
    @Param('path', itemPath) path: string,
    @Body(validateWith(SetEnabledBodySchema)) body: z.output<typeof SetEnabledBodySchema>,
  ): Promise<string> {
    const trigger = await this.api.setEnabled({ ...requestFieldsOf(caller), path, enabled: body.enabled });
    return `HTTP route ${path} ${trigger.enabled ? 'enabled' : 'disabled'}`;
  }

  @Post('setmode/*path')
  @HttpCode(200)
  @Header('content-type', text)
  async setMode(
    @CurrentCaller() caller: Caller,
    @Param('path', itemPath) path: string,
    @Body(validateWith(SetModeBodySchema)) body: z.output<typeof SetModeBodySchema>,
  ): Promise<string> {
    const trigger = await this.api.setEnabled({ ...requestFieldsOf(caller), path, mode: body.mode });
    return `HTTP route ${path} mode set to ${trigger.mode}`;
  }

  @Post('route_exists')
  @Header('content-type', 'application/json')
  @HttpCode(200)
  async routeExists(
    @CurrentCaller() caller: Caller,
    @Body(validateWith(RouteExistsBodySchema)) body: z.output<typeof RouteExistsBodySchema>,
  ): Promise<boolean> {
    const reply = await this.api.routeExists({
      ...requestFieldsOf(caller),
      route_path: body.route_path,
      http_method: body.http_method,
      ...(body.trigger_path === undefined ? {} : { trigger_path: body.trigger_path }),
      ...(body.workspaced_route == null ? {} : { workspaced_route: body.workspaced_route }),
    });
    return reply.exists;
  }
}
