import { jsonBody, validateWith } from '@flowmesh/http';
import { Body, Controller, Get, Header, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import type { z } from 'zod';
import { BearerAuthGuard } from '../http/bearer-auth.guard.js';
import type { Caller } from '../http/caller.js';
import { CurrentCaller } from '../http/current-caller.decorator.js';
import { jobIdParam } from '../http/job-id.param.js';
import { CancelJobService } from './cancel-job.service.js';
import { CancelBodySchema, ListJobsQuerySchema, LogOffsetQuerySchema } from './jobs.http.js';
import { ListJobsService } from './list-jobs.service.js';
import { ReadJobService } from './read-job.service.js';
import { toWindmillJobSummary } from './windmill-job.mapper.js';

/** Windmill's job reads (`jobs_u/...`, `jobs/list`, `jobs/result_by_id`) and cancel. */
@Controller('api/w/:workspace')
@UseGuards(BearerAuthGuard)
export class ReadJobsController {
  constructor(
    private readonly read: ReadJobService,
    private readonly listing: ListJobsService,
    private readonly cancelling: CancelJobService,
  ) {}

  @Get('jobs_u/get/:id')
  get(@CurrentCaller() caller: Caller, @Param('id', jobIdParam) id: string) {
    return this.read.get(caller, id);
  }

  @Get('jobs_u/completed/get_result/:id')
  async result(@CurrentCaller() caller: Caller, @Param('id', jobIdParam) id: string) {
    return jsonBody(await this.read.result(caller, id));
  }

  @Get('jobs_u/completed/get_result_maybe/:id')
  resultMaybe(@CurrentCaller() caller: Caller, @Param('id', jobIdParam) id: string) {
    return this.read.resultMaybe(caller, id);
  }

  @Get('jobs_u/getupdate/:id')
  update(
    @CurrentCaller() caller: Caller,
    @Param('id', jobIdParam) id: string,
    @Query(validateWith(LogOffsetQuerySchema, 'query')) query: z.output<typeof LogOffsetQuerySchema>,
  ) {
    return this.read.update(caller, id, query.log_offset);
  }

  @Get('jobs_u/get_logs/:id')
  @Header('content-type', 'text/plain; charset=utf-8')
  async logs(@CurrentCaller() caller: Caller, @Param('id', jobIdParam) id: string): Promise<string> {
    return (await this.read.logs(caller, id)).logs;
  }

  @Get('jobs/result_by_id/:flowJobId/:nodeId')
  async resultByNode(
    @CurrentCaller() caller: Caller,
    @Param('flowJobId', jobIdParam) flowJobId: string,
    @Param('nodeId') nodeId: string,
  ) {
    return jsonBody(await this.read.resultByNode(caller, flowJobId, nodeId));
  }

  @Get('jobs/list')
  async list(
    @CurrentCaller() caller: Caller,
    @Query(validateWith(ListJobsQuerySchema, 'query')) filter: z.output<typeof ListJobsQuerySchema>,
  ) {
    return (await this.listing.list(caller, filter)).map(toWindmillJobSummary);
  }

  @Post('jobs_u/queue/cancel/:id')
  @HttpCode(200)
  @Header('content-type', 'text/plain; charset=utf-8')
  cancel(
    @CurrentCaller() caller: Caller,
    @Param('id', jobIdParam) id: string,
    @Body(validateWith(CancelBodySchema)) body: z.output<typeof CancelBodySchema>,
  ): Promise<string> {
    return this.cancelling.cancelOrRefuse(caller, id, body.reason);
  }
}
