import {
  EditScheduleSchema,
  findLoneSurrogate,
  LONE_SURROGATE_MESSAGE,
  NewScheduleSchema,
  PreviewScheduleSchema,
  SetScheduleEnabledSchema,
  type Schedule,
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
import { SchedulesApi } from './schedules-api.service.js';

const TEXT = 'text/plain; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';

const booleanQuery = z
  .enum(['true', 'false'], { error: 'must be true or false' })
  .transform((v) => v === 'true');
const positiveQuery = z.coerce.number().int().min(1);

/** `GET schedules/list`'s query, as Windmill's (`args` is a JSON object the schedules' args contain). */
const ListQuerySchema = z.looseObject({
  page: positiveQuery.optional(),
  per_page: positiveQuery.max(1_000).optional(),
  path: z.string().optional(),
  is_flow: booleanQuery.optional(),
  path_start: z.string().optional(),
  args: z
    .string()
    .transform((text, ctx) => {
      try {
        const parsed: unknown = JSON.parse(text);
        const lone = findLoneSurrogate(parsed);
        if (lone !== undefined) {
          ctx.addIssue({ code: 'custom', message: `${lone}: ${LONE_SURROGATE_MESSAGE}` });
          return z.NEVER;
        }
        if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
          return parsed as Record<string, unknown>;
      } catch {
        // reported below
      }
      ctx.addIssue({ code: 'custom', message: 'must be a JSON object' });
      return z.NEVER;
    })
    .optional(),
});

/**
 * Windmill's schedule routes under `/api/w/:workspace/schedules/`, a line each over the use cases
 * (`SchedulesApi`, which the NATS handler calls too). Answers as Windmill's: the path as text for
 * create and update, a sentence for delete and setenabled, JSON otherwise.
 */
@Controller('api/w/:workspace/schedules')
@UseGuards(BearerAuthGuard)
export class SchedulesController {
  constructor(private readonly api: SchedulesApi) {}

  @Post('create')
  @Header('content-type', TEXT)
  async create(
    @CurrentCaller() caller: Caller,
    @Body(validateWith(NewScheduleSchema)) body: z.output<typeof NewScheduleSchema>,
  ): Promise<string> {
    return (await this.api.create({ ...requestFieldsOf(caller), ...body })).path;
  }

  @Get('get/*path')
  get(@CurrentCaller() caller: Caller, @Param('path', itemPath) path: string): Promise<Schedule> {
    return this.api.get({ ...requestFieldsOf(caller), path });
  }

  @Get('exists/*path')
  @Header('content-type', JSON_TYPE)
  async exists(@CurrentCaller() caller: Caller, @Param('path', itemPath) path: string): Promise<string> {
    return JSON.stringify((await this.api.exists({ ...requestFieldsOf(caller), path })).exists);
  }

  @Get('list')
  async list(
    @CurrentCaller() caller: Caller,
    @Query(validateWith(ListQuerySchema, 'query')) query: z.output<typeof ListQuerySchema>,
  ): Promise<Schedule[]> {
    const { page, per_page, path, is_flow, path_start, args } = query;
    const filter = { page, per_page, path, is_flow, path_start, args };
    const defined = Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== undefined));
    return (await this.api.list({ ...requestFieldsOf(caller), ...defined })).schedules;
  }

  @Post('update/*path')
  @HttpCode(200)
  @Header('content-type', TEXT)
  async update(
    @CurrentCaller() caller: Caller,
    @Param('path', itemPath) path: string,
    @Body(validateWith(EditScheduleSchema)) body: z.output<typeof EditScheduleSchema>,
  ): Promise<string> {
    return (await this.api.update({ ...requestFieldsOf(caller), path, ...body })).path;
  }

  @Delete('delete/*path')
  @Header('content-type', TEXT)
  async delete(@CurrentCaller() caller: Caller, @Param('path', itemPath) path: string): Promise<string> {
    await this.api.delete({ ...requestFieldsOf(caller), path });
    return `schedule ${path} deleted`;
  }

  @Post('setenabled/*path')
  @HttpCode(200)
  @Header('content-type', TEXT)
  async setEnabled(
    @CurrentCaller() caller: Caller,
    @Param('path', itemPath) path: string,
    @Body(validateWith(SetScheduleEnabledSchema)) body: z.output<typeof SetScheduleEnabledSchema>,
  ): Promise<string> {
    const { enabled } = await this.api.setEnabled({
      ...requestFieldsOf(caller),
      path,
      enabled: body.enabled,
    });
    return `succesfully updated schedule at path ${path} to status ${enabled}`;
  }

  @Post('preview')
  @HttpCode(200)
  async preview(
    @CurrentCaller() caller: Caller,
    @Body(validateWith(PreviewScheduleSchema)) body: z.output<typeof PreviewScheduleSchema>,
  ): Promise<string[]> {
    return (await this.api.preview({ ...requestFieldsOf(caller), ...body })).next;
  }
}
