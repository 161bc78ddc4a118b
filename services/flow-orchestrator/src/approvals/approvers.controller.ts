import { randomInt } from 'node:crypto';
import { validateWith } from '@flowmesh/http';
import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import type { z } from 'zod';
import { BearerAuthGuard } from '../http/bearer-auth.guard.js';
import type { Caller } from '../http/caller.js';
import { CurrentCaller } from '../http/current-caller.decorator.js';
import { jobIdParam } from '../http/job-id.param.js';
import { ApproverQuerySchema, FlowResumeQuerySchema, ResumeIdSchema } from './approvals.http.js';
import { ResumeJobService } from './resume-job.service.js';
import { ResumeUrlsService } from './resume-urls.service.js';

/** Approvals for signed-in callers: the signed links of a job, and answering as oneself. */
@Controller('api/w/:workspace/jobs')
@UseGuards(BearerAuthGuard)
export class ApproversController {
  constructor(
    private readonly urls: ResumeUrlsService,
    private readonly resumes: ResumeJobService,
  ) {}

  @Get('resume_urls/:id/:resumeId')
  resumeUrls(
    @CurrentCaller() caller: Caller,
    @Param('id', jobIdParam) id: string,
    @Param('resumeId', validateWith(ResumeIdSchema, 'resume id')) resumeId: number,
    @Query(validateWith(ApproverQuerySchema, 'query')) query: z.output<typeof ApproverQuerySchema>,
  ) {
    return this.urls.urls(caller, id, resumeId, query.approver);
  }

  /** The body is the payload (the next step's `resume`); `?approve=false` disapproves; the caller is the approver. */
  @Post('flow/resume/:id')
  @HttpCode(200)
  async resume(
    @CurrentCaller() caller: Caller,
    @Param('id', jobIdParam) id: string,
    @Query(validateWith(FlowResumeQuerySchema, 'query')) query: z.output<typeof FlowResumeQuerySchema>,
    @Body() payload: unknown,
  ) {
    // No body is an empty payload; any JSON value, null included, is the payload as given.
    const answer = { approve: query.approve, payload: payload === undefined ? {} : payload };
    // Without a resume id, each call is its own approval (required_events counts them).
    return { outcome: await this.resumes.asUser(caller, id, query.resume_id ?? randomInt(2 ** 31), answer) };
  }
}
