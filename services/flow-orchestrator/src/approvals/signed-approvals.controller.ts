import { bearerTokenOf, validateWith } from '@flowmesh/http';
import { Body, Controller, Get, Header, Headers, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import type { z } from 'zod';
import { jobIdParam } from '../http/job-id.param.js';
import { renderAnsweredPage } from './approval-page.renderer.js';
import { ApprovalPageService } from './approval-page.service.js';
import { ApproverQuerySchema, ResumeIdSchema } from './approvals.http.js';
import { decodeFormPayload, decodeQueryPayload } from './resume-payload.decoder.js';
import { ResumeJobService } from './resume-job.service.js';
import type { SignedLink } from './signed-link.js';

type ApproverQuery = z.output<typeof ApproverQuerySchema>;
const approverQuery = validateWith(ApproverQuerySchema, 'query');
const resumeIdParam = validateWith(ResumeIdSchema, 'resume id');

/** The part of Express's response a form answer sets. */
interface HtmlResponse {
  type(contentType: string): unknown;
}

/**
 * The signed links of a suspended step (no bearer token needed: the signature is the right to
 * answer; with `user_auth_required` a bearer token must come too). GET takes the payload as
 * `?payload=` JSON, POST as the JSON body, or as the approval page's form.
 */
@Controller('api/w/:workspace/jobs_u')
export class SignedApprovalsController {
  constructor(
    private readonly resumes: ResumeJobService,
    private readonly page: ApprovalPageService,
  ) {}

  @Get('approval_page/:id/:resumeId/:signature')
  @Header('content-type', 'text/html; charset=utf-8')
  @Header('cache-control', 'no-store')
  approvalPage(
    @Param('workspace') workspace: string,
    @Param('id', jobIdParam) id: string,
    @Param('resumeId', resumeIdParam) resumeId: number,
    @Param('signature') signature: string,
    @Query(approverQuery) query: ApproverQuery,
  ): Promise<string> {
    return this.page.render(link(workspace, id, resumeId, signature, query));
  }

  @Get('resume/:id/:resumeId/:signature')
  resumeByGet(
    @Param('workspace') workspace: string,
    @Param('id', jobIdParam) id: string,
    @Param('resumeId', resumeIdParam) resumeId: number,
    @Param('signature') signature: string,
    @Query(approverQuery) query: ApproverQuery,
    @Headers('authorization') authorization: string | undefined,
  ) {
    const answer = { approve: true, payload: decodeQueryPayload(query.payload) };
    return this.answer(link(workspace, id, resumeId, signature, query), answer, authorization);
  }

  @Post('resume/:id/:resumeId/:signature')
  @HttpCode(200)
  async resumeByPost(
    @Param('workspace') workspace: string,
    @Param('id', jobIdParam) id: string,
    @Param('resumeId', resumeIdParam) resumeId: number,
    @Param('signature') signature: string,
    @Query(approverQuery) query: ApproverQuery,
    @Headers('authorization') authorization: string | undefined,
    @Headers('content-type') contentType: string | undefined,
    @Body() body: unknown,
    @Res({ passthrough: true }) res: HtmlResponse,
  ) {
    const signed = link(workspace, id, resumeId, signature, query);
    if (!isForm(contentType))
      return this.answer(signed, { approve: true, payload: body === undefined ? {} : body }, authorization);
    const approval = await this.resumes.signedApproval(signed);
    const payload = decodeFormPayload(approval.suspend.resume_form?.schema, formOf(body));
    const reply = await this.answer(signed, { approve: true, payload }, authorization);
    res.type('html');
    return renderAnsweredPage(
      'Approved',
      `Thank you: your approval was recorded (${reply.outcome === 'waiting' ? 'more approvals are needed' : 'the flow continues'}).`,
    );
  }

  @Get('cancel/:id/:resumeId/:signature')
  cancelByGet(
    @Param('workspace') workspace: string,
    @Param('id', jobIdParam) id: string,
    @Param('resumeId', resumeIdParam) resumeId: number,
    @Param('signature') signature: string,
    @Query(approverQuery) query: ApproverQuery,
    @Headers('authorization') authorization: string | undefined,
  ) {
    const answer = { approve: false, payload: decodeQueryPayload(query.payload) };
    return this.answer(link(workspace, id, resumeId, signature, query), answer, authorization);
  }

  @Post('cancel/:id/:resumeId/:signature')
  @HttpCode(200)
  async cancelByPost(
    @Param('workspace') workspace: string,
    @Param('id', jobIdParam) id: string,
    @Param('resumeId', resumeIdParam) resumeId: number,
    @Param('signature') signature: string,
    @Query(approverQuery) query: ApproverQuery,
    @Headers('authorization') authorization: string | undefined,
    @Headers('content-type') contentType: string | undefined,
    @Body() body: unknown,
    @Res({ passthrough: true }) res: HtmlResponse,
  ) {
    const signed = link(workspace, id, resumeId, signature, query);
    if (!isForm(contentType))
      return this.answer(signed, { approve: false, payload: body === undefined ? {} : body }, authorization);
    await this.answer(signed, { approve: false, payload: {} }, authorization);
    res.type('html');
    return renderAnsweredPage('Disapproved', 'Your disapproval was recorded: the flow will not continue.');
  }

  private async answer(
    signed: SignedLink,
    answer: { approve: boolean; payload: unknown },
    authorization: string | undefined,
  ) {
    return { outcome: await this.resumes.bySignedLink(signed, answer, bearerTokenOf(authorization)) };
  }
}

function link(
  workspace: string,
  jobId: string,
  resumeId: number,
  signature: string,
  query: ApproverQuery,
): SignedLink {
  return { workspace, jobId, resumeId, approver: query.approver, signature };
}

function isForm(contentType: string | undefined): boolean {
  return contentType?.toLowerCase().startsWith('application/x-www-form-urlencoded') ?? false;
}

function formOf(body: unknown): Record<string, unknown> {
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
}
