import {
  EventTriggerModeSchema,
  NEW_EVENT_TRIGGER_SCHEMAS,
  type CreateEventTriggerRequest,
  type EventTrigger,
  type UpdateEventTriggerRequest,
  type EventTriggerKind,
  type NewEventTrigger,
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
  type Type,
} from '@nestjs/common';
import { z } from 'zod';
import { BearerAuthGuard } from '../../http/bearer-auth.guard.js';
import { requestFieldsOf, type Caller } from '../../http/caller.js';
import { CurrentCaller } from '../../http/current-caller.decorator.js';
import { EventTriggersApi } from './event-triggers-api.service.js';

const flag = z
  .enum(['true', 'false'], { error: 'must be true or false' })
  .transform((value) => value === 'true');

/** Windmill's `<kind>_triggers/list` query. */
const ListQuerySchema = z.looseObject({
  page: z.coerce.number().int().min(1).optional(),
  per_page: z.coerce.number().int().min(1).max(1_000).optional(),
  path: z.string().max(255).optional(),
  is_flow: flag.optional(),
  path_start: z.string().max(255).optional(),
});

const SetEnabledBodySchema = z.looseObject({ enabled: z.boolean({ error: 'must be true or false' }) });
const SetModeBodySchema = z.looseObject({ mode: EventTriggerModeSchema });
const text = 'text/plain; charset=utf-8';

/**
 * Windmill's API of one kind of event trigger, `/api/w/:workspace/<kind>_triggers/...`, with a
 * bearer token: `create` (201, the path as text), `get/<path>`, `list`, `update/<path>` (the path
 * as text), `delete/<path>`, `exists/<path>`, `setmode/<path>` and the older `setenabled/<path>`.
 * One class per kind (the kind is in the route, as Windmill's per-kind routers).
 */
export function eventTriggersController(kind: EventTriggerKind): Type {
  const triggerBody = validateWith(NEW_EVENT_TRIGGER_SCHEMAS[kind]);
  const noun = `${kind} trigger`;

  @Controller(`api/w/:workspace/${kind}_triggers`)
  @UseGuards(BearerAuthGuard)
  class EventTriggersController {
    constructor(readonly api: EventTriggersApi) {}

    @Post('create')
    @Header('content-type', text)
    async create(
      @CurrentCaller() caller: Caller,
      @Body(triggerBody) trigger: NewEventTrigger,
    ): Promise<string> {
      return (
        await this.api.create({ ...requestFieldsOf(caller), kind, trigger } as CreateEventTriggerRequest)
      ).path;
    }

    @Get('list')
    async list(
      @CurrentCaller() caller: Caller,
      @Query(validateWith(ListQuerySchema, 'query')) query: z.output<typeof ListQuerySchema>,
    ): Promise<EventTrigger[]> {
      const { triggers } = await this.api.list({
        ...requestFieldsOf(caller),
        kind,
        ...(query.page === undefined ? {} : { page: query.page }),
        ...(query.per_page === undefined ? {} : { per_page: query.per_page }),
        ...(query.path === undefined ? {} : { path: query.path }),
        ...(query.is_flow === undefined ? {} : { is_flow: query.is_flow }),
        ...(query.path_start === undefined ? {} : { path_start: query.path_start }),
      });
      return triggers;
    }

    @Get('get/*path')
    get(@CurrentCaller() caller: Caller, @Param('path', itemPath) path: string): Promise<EventTrigger> {
      return this.api.get({ ...requestFieldsOf(caller), kind, path });
    }

    @Post('update/*path')
    @HttpCode(200)
    @Header('content-type', text)
    async update(
      @CurrentCaller() caller: Caller,
      @Param('path', itemPath) path: string,
      @Body(triggerBody) trigger: NewEventTrigger,
    ): Promise<string> {
      return (
        await this.api.update({
          ...requestFieldsOf(caller),
          kind,
          path,
          trigger,
        } as UpdateEventTriggerRequest)
      ).path;
    }

    @Delete('delete/*path')
    @Header('content-type', text)
    async delete(@CurrentCaller() caller: Caller, @Param('path', itemPath) path: string): Promise<string> {
      await this.api.delete({ ...requestFieldsOf(caller), kind, path });
      return `${noun} ${path} deleted`;
    }

    @Get('exists/*path')
    @Header('content-type', 'application/json')
    async exists(@CurrentCaller() caller: Caller, @Param('path', itemPath) path: string): Promise<boolean> {
      return (await this.api.exists({ ...requestFieldsOf(caller), kind, path })).exists;
    }

    @Post('setmode/*path')
    @HttpCode(200)
    @Header('content-type', text)
    async setMode(
      @CurrentCaller() caller: Caller,
      @Param('path', itemPath) path: string,
      @Body(validateWith(SetModeBodySchema)) body: z.output<typeof SetModeBodySchema>,
    ): Promise<string> {
      const trigger = await this.api.setMode({ ...requestFieldsOf(caller), kind, path, mode: body.mode });
      return `${noun} ${path} mode set to ${trigger.mode}`;
    }

    @Post('setenabled/*path')
    @HttpCode(200)
    @Header('content-type', text)
    async setEnabled(
      @CurrentCaller() caller: Caller,
      @Param('path', itemPath) path: string,
      @Body(validateWith(SetEnabledBodySchema)) body: z.output<typeof SetEnabledBodySchema>,
    ): Promise<string> {
      const trigger = await this.api.setMode({
        ...requestFieldsOf(caller),
        kind,
        path,
        enabled: body.enabled,
      });
      return `${noun} ${path} ${trigger.enabled ? 'enabled' : 'disabled'}`;
    }
  }
  Object.defineProperty(EventTriggersController, 'name', {
    value: `${kind[0].toUpperCase()}${kind.slice(1)}TriggersController`,
  });
  return EventTriggersController;
}
