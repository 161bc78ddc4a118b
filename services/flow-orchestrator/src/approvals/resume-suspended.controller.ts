import { randomInt } from 'node:crypto';
import type { ResumeOutcome } from '@flowmesh/contracts';
import { validateWith } from '@flowmesh/http';
import { Body, Controller, Header, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import type { z } from 'zod';
import { BearerAuthGuard } from '../http/bearer-auth.guard.js';
import type { Caller } from '../http/caller.js';
import { CurrentCaller } from '../http/current-caller.decorator.js';
import { jobIdParam } from '../http/job-id.param.js';
import { ResumeSuspendedBodySchema } from './approvals.http.js';
import { ResumeJobService } from './resume-job.service.js';

const SAID: Record<ResumeOutcome, string> = {
  resumed: 'job resumed',
  waiting:
    'answer recorded; the job still waits (for more approvals, or for an answer to its current request)',
  cancelled: 'job disapproved',
};

/**
 * Windmill's resume of a suspended job by its id, as the signed-in caller: a flow's approval step
 * (as `POST jobs/flow/resume/:id`), or an AI step parked on its agent's approval or question.
 * Answered as Windmill does: 201 with a line of text.
 */
@Controller('api/w/:workspace/jobs_u/flow')
@UseGuards(BearerAuthGuard)
export class ResumeSuspendedController {
  constructor(private readonly resumes: ResumeJobService) {}

  @Post('resume_suspended/:id')
  @HttpCode(201)
  @Header('content-type', 'text/plain; charset=utf-8')
  async resume(
    @CurrentCaller() caller: Caller,
    @Param('id', jobIdParam) id: string,
    @Body(validateWith(ResumeSuspendedBodySchema)) body: z.output<typeof ResumeSuspendedBodySchema>,
  ): Promise<string> {
    const answer = { approve: body.approved, payload: body.payload === undefined ? {} : body.payload };
    return SAID[await this.resumes.asUser(caller, id, randomInt(2 ** 31), answer)];
  }
}
