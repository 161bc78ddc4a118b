import { validateWith } from '@flowmesh/http';
import { Body, Controller, Header, HttpCode, Param, Post, Query, Res, UseGuards } from '@nestjs/common';
import { z } from 'zod';
import { BearerAuthGuard } from '../http/bearer-auth.guard.js';
import { requestFieldsOf, type Caller } from '../http/caller.js';
import { CurrentCaller } from '../http/current-caller.decorator.js';
import { jobIdParam } from '../http/job-id.param.js';
import { RunFlowUseCase } from '../jobs/run-flow.use-case.js';
import { RunScriptUseCase } from '../jobs/run-script.use-case.js';
import { PreviewFlowBodySchema, PreviewScriptBodySchema, RunQuerySchema } from './jobs.http.js';
import { RestartFlowService } from './restart-flow.service.js';
import { answer, flowOptions, runOptions, type StatusResponse } from './run-options.js';
import { WaitForResultService } from './wait-for-result.service.js';

type RunQuery = z.output<typeof RunQuerySchema>;
const runQuery = validateWith(RunQuerySchema, 'query');
const stepIdParam = validateWith(z.string().min(1).max(255), 'step_id');
/** Windmill's run query as a restart reads it: `job_id`, the new job's id (the same twice starts one run). */
const RestartQuerySchema = z.looseObject({ job_id: z.uuid('must be a job id (a UUID)').optional() });
type RestartQuery = z.output<typeof RestartQuerySchema>;
const restartQuery = validateWith(RestartQuerySchema, 'query');
const branchOrIterationParam = validateWith(
  z.coerce.number().int('must be a whole number').min(0, 'must be 0 or more'),
  'branch_or_iteration_n',
);

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
    private readonly restarts: RestartFlowService,
  ) {}

  /**
   * Windmill's `restart_flow`: a new run of the ended flow run `id` from its step `step_id` (for a
   * sequential for loop or branchall, from its iteration or branch `branch_or_iteration_n`), with
   * the earlier run's args; 201 and the new job's id as text.
   */
  @Post('restart/f/:id/from/:step_id')
  @Header('content-type', 'text/plain; charset=utf-8')
  restartFlow(
    @CurrentCaller() caller: Caller,
    @Param('id', jobIdParam) id: string,
    @Param('step_id', stepIdParam) stepId: string,
    @Query(restartQuery) query: RestartQuery,
  ): Promise<string> {
    return this.restarts.restart(caller, id, { stepId }, query.job_id);
  }

  @Post('restart/f/:id/from/:step_id/:branch_or_iteration_n')
  @Header('content-type', 'text/plain; charset=utf-8')
  restartFlowAt(
    @CurrentCaller() caller: Caller,
    @Param('id', jobIdParam) id: string,
    @Param('step_id', stepIdParam) stepId: string,
    @Param('branch_or_iteration_n', branchOrIterationParam) n: number,
    @Query(restartQuery) query: RestartQuery,
  ): Promise<string> {
    return this.restarts.restart(caller, id, { stepId, branchOrIterationN: n }, query.job_id);
  }

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
