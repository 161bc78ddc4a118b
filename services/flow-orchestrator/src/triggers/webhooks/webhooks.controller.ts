import { jsonDepth, MAX_JSON_DEPTH } from '@flowmesh/bootstrap';
import { itemPath, validateWith } from '@flowmesh/http';
import { loneSurrogateError, MeshError, type TriggerEvent } from '@flowmesh/contracts';
import {
  Controller,
  Get,
  Header,
  HttpCode,
  HttpException,
  Inject,
  Param,
  Post,
  Query,
  Req,
  Res,
  UseGuards,
} from '@nestjs/common';
import type { z } from 'zod';
import { requestFieldsOf, type Caller } from '../../http/caller.js';
import { CurrentCaller } from '../../http/current-caller.decorator.js';
import { RunFlowUseCase } from '../../jobs/run-flow.use-case.js';
import { RunScriptUseCase } from '../../jobs/run-script.use-case.js';
import { HTTP_BODY_LIMIT_BYTES } from '../../run-api/run-api.module.js';
import { WEBHOOK_OPTIONS, WebhookQuerySchema } from '../../run-api/jobs.http.js';
import { answer, flowOptions, scriptOptions, type StatusResponse } from '../../run-api/run-options.js';
import { WaitForResultService } from '../../run-api/wait-for-result.service.js';
import { TriggerMetrics } from '../trigger.metrics.js';
import {
  includedHeaders,
  includedQuery,
  mainArgsOf,
  readTriggerBody,
  triggerHeaders,
  triggerQuery,
  webhookEvent,
  type TriggerBody,
  type TriggerHttpRequest,
} from '../trigger-event.js';
import { WebhookAuthGuard } from './webhook-auth.guard.js';

type WebhookQuery = z.output<typeof WebhookQuerySchema>;
const webhookQuery = validateWith(WebhookQuerySchema, 'query');

/** What a webhook request adds to a run: its arguments, the preprocessor's event, the trigger. */
interface WebhookRun {
  readonly args: Record<string, unknown>;
  readonly apply_preprocessor: boolean;
  readonly trigger: { readonly kind: 'webhook'; readonly path: string };
  readonly trigger_event: TriggerEvent;
}

/**
 * Running a flow or script by path is its webhook, as in Windmill: `jobs/run/{f|p}/<path>` (201
 * and the job id) and `jobs/run_wait_result/{f|p}/<path>` (200 and the result; also as GET with
 * `?payload=`). The item's preprocessor (a flow's `preprocessor_module`, a script's
 * `preprocessor` export) runs first with the event `{ kind: 'webhook', body, raw_string, query,
 * headers }` unless `?skip_preprocessor=true`; an item without one runs with the body as its
 * arguments. The run records `trigger: { kind: 'webhook', path }`. A run token (`jobs:run:<path>`
 * scopes) may call these for its paths and nothing else.
 */
@Controller('api/w/:workspace/jobs')
@UseGuards(WebhookAuthGuard)
export class WebhooksController {
  constructor(
    private readonly runFlows: RunFlowUseCase,
    private readonly runScripts: RunScriptUseCase,
    private readonly wait: WaitForResultService,
    private readonly metrics: TriggerMetrics,
    @Inject(HTTP_BODY_LIMIT_BYTES) private readonly bodyLimitBytes: number,
  ) {}

  @Post('run/f/*path')
  @Header('content-type', 'text/plain; charset=utf-8')
  async runFlow(
    @CurrentCaller() caller: Caller,
    @Param('path', itemPath) path: string,
    @Query(webhookQuery) query: WebhookQuery,
    @Req() req: TriggerHttpRequest,
  ): Promise<string> {
    return this.startFlow(caller, path, query, await this.webhookRun(req, query, path));
  }

  @Post('run_wait_result/f/*path')
  @HttpCode(200)
  async waitFlow(
    @CurrentCaller() caller: Caller,
    @Param('path', itemPath) path: string,
    @Query(webhookQuery) query: WebhookQuery,
    @Req() req: TriggerHttpRequest,
    @Res({ passthrough: true }) res: StatusResponse,
  ) {
    const id = await this.startFlow(caller, path, query, await this.webhookRun(req, query, path));
    return answer(res, await this.wait.outcomeOf(caller, id));
  }

  /** Windmill's GET variant: the arguments as base64 JSON in `?payload=`. */
  @Get('run_wait_result/f/*path')
  async waitFlowGet(
    @CurrentCaller() caller: Caller,
    @Param('path', itemPath) path: string,
    @Query(webhookQuery) query: WebhookQuery,
    @Req() req: TriggerHttpRequest,
    @Res({ passthrough: true }) res: StatusResponse,
  ) {
    const id = await this.startFlow(
      caller,
      path,
      query,
      this.webhookRunOf(req, query, path, payloadBody(query)),
    );
    return answer(res, await this.wait.outcomeOf(caller, id));
  }

  @Post('run/p/*path')
  @Header('content-type', 'text/plain; charset=utf-8')
  async runScript(
    @CurrentCaller() caller: Caller,
    @Param('path', itemPath) path: string,
    @Query(webhookQuery) query: WebhookQuery,
    @Req() req: TriggerHttpRequest,
  ): Promise<string> {
    return this.startScript(caller, path, query, await this.webhookRun(req, query, path));
  }

  @Post('run_wait_result/p/*path')
  @HttpCode(200)
  async waitScript(
    @CurrentCaller() caller: Caller,
    @Param('path', itemPath) path: string,
    @Query(webhookQuery) query: WebhookQuery,
    @Req() req: TriggerHttpRequest,
    @Res({ passthrough: true }) res: StatusResponse,
  ) {
    const id = await this.startScript(caller, path, query, await this.webhookRun(req, query, path));
    return answer(res, await this.wait.outcomeOf(caller, id));
  }

  @Get('run_wait_result/p/*path')
  async waitScriptGet(
    @CurrentCaller() caller: Caller,
    @Param('path', itemPath) path: string,
    @Query(webhookQuery) query: WebhookQuery,
    @Req() req: TriggerHttpRequest,
    @Res({ passthrough: true }) res: StatusResponse,
  ) {
    const run = this.webhookRunOf(req, query, path, payloadBody(query));
    const id = await this.startScript(caller, path, query, run);
    return answer(res, await this.wait.outcomeOf(caller, id));
  }

  private startFlow(caller: Caller, path: string, query: WebhookQuery, run: WebhookRun): Promise<string> {
    return this.counted(
      this.runFlows.run({ ...requestFieldsOf(caller), ...flowOptions(query), path, ...run }, caller.identity),
    );
  }

  private startScript(caller: Caller, path: string, query: WebhookQuery, run: WebhookRun): Promise<string> {
    return this.counted(
      this.runScripts.run(
        { ...requestFieldsOf(caller), ...scriptOptions(query), path, ...run },
        caller.identity,
      ),
    );
  }

  /** A webhook fired once its run is accepted; one refused (bad args, no rights) failed. */
  private async counted(started: Promise<string>): Promise<string> {
    try {
      const id = await started;
      this.metrics.fired('webhook');
      return id;
    } catch (error) {
      this.metrics.failed('webhook');
      throw error;
    }
  }

  private async webhookRun(req: TriggerHttpRequest, query: WebhookQuery, path: string): Promise<WebhookRun> {
    let body: TriggerBody;
    try {
      body = await readTriggerBody(req, { raw: query.raw === true, limitBytes: this.bodyLimitBytes });
    } catch (error) {
      // Windmill's answer to a body of a type it does not read.
      if (error instanceof MeshError && error.code === 'UNSUPPORTED')
        throw new HttpException(error.toEnvelope(), 415);
      throw error;
    }
    return this.webhookRunOf(req, query, path, body);
  }

  private webhookRunOf(
    req: TriggerHttpRequest,
    query: WebhookQuery,
    path: string,
    body: TriggerBody,
  ): WebhookRun {
    const headers = triggerHeaders(req);
    const params = triggerQuery(req, WEBHOOK_OPTIONS);
    const extra = {
      ...includedHeaders(headers, query.include_header),
      ...includedQuery(params, query.include_query),
    };
    return {
      args: mainArgsOf(body, { wrapBody: query.wrap_body === true, extra }),
      apply_preprocessor: query.skip_preprocessor !== true,
      trigger: { kind: 'webhook', path },
      trigger_event: webhookEvent({ body, query: params, headers }),
    };
  }
}

/** `?payload=`: the arguments as JSON in base64 (standard or URL-safe), as Windmill's GET routes take them. */
function payloadBody(query: WebhookQuery): TriggerBody {
  if (query.payload === undefined) return { body: {}, rawString: query.raw ? '' : null };
  const text = Buffer.from(query.payload, 'base64').toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new MeshError('VALIDATION_FAILED', 'payload: must be JSON encoded in base64', {
      issues: [{ path: 'payload', message: 'must be JSON encoded in base64' }],
    });
  }
  if (jsonDepth(value) > MAX_JSON_DEPTH) {
    throw new MeshError('VALIDATION_FAILED', `payload: nests deeper than ${MAX_JSON_DEPTH} levels`, {
      issues: [{ path: 'payload', message: `nests deeper than ${MAX_JSON_DEPTH} levels` }],
    });
  }
  const surrogate = loneSurrogateError('payload', value, ['payload']);
  if (surrogate) throw surrogate;
  return { body: value, rawString: query.raw ? text : null };
}
