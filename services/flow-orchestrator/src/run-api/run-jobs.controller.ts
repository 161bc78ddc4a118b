import { itemPath, validateWith } from '@flowmesh/http';
import { Body, Controller, Header, HttpCode, Param, Post, Query, Res, UseGuards } from '@nestjs/common';
import type { z } from 'zod';
import { BearerAuthGuard } from '../http/bearer-auth.guard.js';
import { requestFieldsOf, type Caller } from '../http/caller.js';
import { CurrentCaller } from '../http/current-caller.decorator.js';
import { RunFlowUseCase } from '../jobs/run-flow.use-case.js';
import { RunScriptUseCase } from '../jobs/run-script.use-case.js';
import {
  ArgsBodySchema,
  PreviewFlowBodySchema,
  PreviewScriptBodySchema,
  RunQuerySchema,
} from './jobs.http.js';
import { WaitForResultService, type JobOutcome } from './wait-for-result.service.js';

type RunQuery = z.output<typeof RunQuerySchema>;
type Args = z.output<typeof ArgsBodySchema>;
const runQuery = validateWith(RunQuerySchema, 'query');
const args = validateWith(ArgsBodySchema, 'arguments');

/** The part of Express's response a wait-for-result route sets. */
interface StatusResponse {
  status(code: number): unknown;
}

/**
 * Windmill's run routes: `jobs/run/...` answers 201 and the job id as text once the job is
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

  @Post('run/f/*path')
  @Header('content-type', 'text/plain; charset=utf-8')
  runFlow(
    @CurrentCaller() caller: Caller,
    @Param('path', itemPath) path: string,
    @Body(args) body: Args,
    @Query(runQuery) query: RunQuery,
  ): Promise<string> {
    return this.runFlows.run(
      { ...requestFieldsOf(caller), ...flowOptions(query), path, args: body },
      caller.identity,
    );
  }

  @Post('run_wait_result/f/*path')
  @HttpCode(200)
  async waitFlow(
    @CurrentCaller() caller: Caller,
    @Param('path', itemPath) path: string,
    @Body(args) body: Args,
    @Query(runQuery) query: RunQuery,
    @Res({ passthrough: true }) res: StatusResponse,
  ) {
    const id = await this.runFlows.run(
      { ...requestFieldsOf(caller), ...flowOptions(query), path, args: body },
      caller.identity,
    );
    return answer(res, await this.wait.outcomeOf(caller, id));
  }

  @Post('run/p/*path')
  @Header('content-type', 'text/plain; charset=utf-8')
  runScript(
    @CurrentCaller() caller: Caller,
    @Param('path', itemPath) path: string,
    @Body(args) body: Args,
    @Query(runQuery) query: RunQuery,
  ): Promise<string> {
    return this.runScripts.run(
      { ...requestFieldsOf(caller), ...options(query), ...hash(query), path, args: body },
      caller.identity,
    );
  }

  @Post('run_wait_result/p/*path')
  @HttpCode(200)
  async waitScript(
    @CurrentCaller() caller: Caller,
    @Param('path', itemPath) path: string,
    @Body(args) body: Args,
    @Query(runQuery) query: RunQuery,
    @Res({ passthrough: true }) res: StatusResponse,
  ) {
    const id = await this.runScripts.run(
      { ...requestFieldsOf(caller), ...options(query), ...hash(query), path, args: body },
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
      { ...requestFieldsOf(caller), ...options(query), ...previewScript(body) },
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
    const command = { ...options(query), ...previewScript(body) };
    const id = await this.runScripts.run({ ...requestFieldsOf(caller), ...command }, caller.identity);
    return answer(res, await this.wait.outcomeOf(caller, id));
  }
}

function options(query: RunQuery) {
  return {
    args: {},
    ...(query.tag === undefined ? {} : { tag: query.tag }),
    ...(query.job_id === undefined ? {} : { job_id: query.job_id }),
    ...(query.scheduled_for === undefined ? {} : { scheduled_for: query.scheduled_for }),
  };
}

function flowOptions(query: RunQuery) {
  return {
    ...options(query),
    ...(query.memory_id === undefined ? {} : { memory_id: query.memory_id }),
    ...(query.pin_agents ? { pin_agents: true } : {}),
  };
}

function hash(query: RunQuery) {
  return query.hash === undefined ? {} : { hash: query.hash };
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

/** The result as JSON, 422 when the job failed (its `{ error }` is the body). */
function answer(res: StatusResponse, outcome: JobOutcome): { toJSON(): unknown } {
  if (!outcome.success) res.status(422);
  return { toJSON: () => outcome.result ?? null };
}
