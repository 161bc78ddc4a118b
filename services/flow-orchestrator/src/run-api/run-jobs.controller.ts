import { validateWith } from '@flowmesh/http';
import { Body, Controller, Header, HttpCode, Post, Query, Res, UseGuards } from '@nestjs/common';
import type { z } from 'zod';
import { BearerAuthGuard } from '../http/bearer-auth.guard.js';
import { requestFieldsOf, type Caller } from '../http/caller.js';
import { CurrentCaller } from '../http/current-caller.decorator.js';
import { RunFlowUseCase } from '../jobs/run-flow.use-case.js';
import { RunScriptUseCase } from '../jobs/run-script.use-case.js';
import { PreviewFlowBodySchema, PreviewScriptBodySchema, RunQuerySchema } from './jobs.http.js';
import { answer, flowOptions, runOptions, type StatusResponse } from './run-options.js';
import { WaitForResultService } from './wait-for-result.service.js';

type RunQuery = z.output<typeof RunQuerySchema>;
const runQuery = validateWith(RunQuerySchema, 'query');

/**
 * Windmill's preview run routes (runs by path are webhooks: `webhooks.controller.ts`):
 * `jobs/run/...` answers 201 and the job id as text once the job is
 * queued; `jobs/run_wait_result/...` answers 200 and the result, or 422 and the `{ error }` the
 * job failed with.
 */
@Controller('api/w/:workspace/jobs')
@UseGuards(BearerAuthGuard)
export class RunJobsController {
  constructor(
    private readonly runFlows: RunFlowUseCase,
    private readonly runScripts: RunScriptUseCase,
    private readonly wait: WaitForResultService,
  ) {}

  @Post('run/preview_flow')
  @Header('content-type', 'text/plain; charset=utf-8')
  previewFlow(
    @CurrentCaller() caller: Caller,
    @Body(validateWith(PreviewFlowBodySchema)) body: z.output<typeof PreviewFlowBodySchema>,
    @Query(runQuery) query: RunQuery,
  ): Promise<string> {
    return this.runFlows.run(
      { ...requestFieldsOf(caller), ...flowOptions(query), ...previewFlow(body) },
      caller.identity,
    );
  }

  @Post('run_wait_result/preview_flow')
  @HttpCode(200)
  async waitPreviewFlow(
    @CurrentCaller() caller: Caller,
    @Body(validateWith(PreviewFlowBodySchema)) body: z.output<typeof PreviewFlowBodySchema>,
    @Query(runQuery) query: RunQuery,
    @Res({ passthrough: true }) res: StatusResponse,
  ) {
    const id = await this.runFlows.run(
      { ...requestFieldsOf(caller), ...flowOptions(query), ...previewFlow(body) },
      caller.identity,
    );
    return answer(res, await this.wait.outcomeOf(caller, id));
  }

  @Post('run/preview')
  @Header('content-type', 'text/plain; charset=utf-8')
  previewScript(
    @CurrentCaller() caller: Caller,
    @Body(validateWith(PreviewScriptBodySchema)) body: z.output<typeof PreviewScriptBodySchema>,
    @Query(runQuery) query: RunQuery,
  ): Promise<string> {
    return this.runScripts.run(
      { ...requestFieldsOf(caller), ...runOptions(query), ...previewScript(body) },
      caller.identity,
    );
  }

  @Post('run_wait_result/preview')
  @HttpCode(200)
  async waitPreviewScript(
    @CurrentCaller() caller: Caller,
    @Body(validateWith(PreviewScriptBodySchema)) body: z.output<typeof PreviewScriptBodySchema>,
    @Query(runQuery) query: RunQuery,
    @Res({ passthrough: true }) res: StatusResponse,
  ) {
    const command = { ...runOptions(query), ...previewScript(body) };
    const id = await this.runScripts.run({ ...requestFieldsOf(caller), ...command }, caller.identity);
    return answer(res, await this.wait.outcomeOf(caller, id));
  }
}

function previewFlow(body: z.output<typeof PreviewFlowBodySchema>) {
  return {
    value: body.value,
    args: body.args,
    ...(body.path === undefined ? {} : { path: body.path }),
    ...(body.tag === undefined ? {} : { tag: body.tag }),
    ...(body.agent_drafts === undefined ? {} : { agent_drafts: body.agent_drafts }),
    ...(body.pin_agents ? { pin_agents: true } : {}),
  };
}

function previewScript(body: z.output<typeof PreviewScriptBodySchema>) {
  return {
    ...(body.tag === undefined ? {} : { tag: body.tag }),
    content: body.content,
    language: body.language,
    args: body.args,
    ...(body.path === undefined ? {} : { path: body.path }),
    ...(body.lock === undefined ? {} : { lock: body.lock }),
  };
}
