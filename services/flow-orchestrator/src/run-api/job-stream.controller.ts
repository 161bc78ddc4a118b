import type { IncomingMessage, ServerResponse } from 'node:http';
import { MeshError, type JobStreamEnd, type JobStreamError } from '@flowmesh/contracts';
import { InjectMeshConnection, type MeshConnection } from '@flowmesh/messaging';
import { Controller, Get, Param, Req, Res, UseGuards } from '@nestjs/common';
import { JobVisibility } from '../access/job-visibility.service.js';
import { BearerAuthGuard } from '../http/bearer-auth.guard.js';
import type { Caller } from '../http/caller.js';
import { CurrentCaller } from '../http/current-caller.decorator.js';
import { jobIdParam } from '../http/job-id.param.js';
import { RunStreamReader } from './run-stream.reader.js';
import { WaitForResultService } from './wait-for-result.service.js';

/** A comment line while nothing streams, so proxies keep the connection open. */
const KEEPALIVE_MS = 15_000;
/** How long one wait for the run's end lasts before the caller's access is checked again. */
const WAIT_SLICE_MS = 30_000;

/**
 * `GET jobs_u/stream/{id}`: the stream of a run's AI steps with `streaming: true`, as server-sent
 * events (`event: token_delta`, `tool_call`, ..., each `data` an `AgentStreamEnvelope`, each `id`
 * its offset in the run's stream), until the run ends (`event: end` with its status). `id` is the
 * run's job (every step's events) or one step's job (its own). Everything said so far comes first:
 * a reader who connects late misses nothing, and one who reconnects with `Last-Event-ID` (or
 * `?after=<offset>`) gets what came after that offset, nothing twice.
 */
@Controller('api/w/:workspace')
@UseGuards(BearerAuthGuard)
export class JobStreamController {
  constructor(
    private readonly visibility: JobVisibility,
    private readonly results: WaitForResultService,
    @InjectMeshConnection() private readonly conn: MeshConnection,
  ) {}

  @Get('jobs_u/stream/:id')
  async stream(
    @CurrentCaller() caller: Caller,
    @Param('id', jobIdParam) id: string,
    @Req() request: IncomingMessage,
    @Res() response: ServerResponse,
  ): Promise<void> {
    const after = resumeOffset(request);
    const job = await this.visibility.readable(caller, id);
    const wholeRun = job.id === job.root_job;
    const reader = await RunStreamReader.open(this.conn, job.root_job, after);
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    let open = true;
    // A client that went away: nothing more is written, and a late write's error is not thrown.
    response.on('close', () => (open = false));
    response.on('error', () => (open = false));
    const write = (text: string) => {
      if (open && !response.destroyed) response.write(text);
    };
    const send = (event: string, data: unknown, offset?: number) =>
      write(
        `${offset === undefined ? '' : `id: ${offset}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`,
      );
    const relaying = reader.relay((envelope, offset) => {
      if (wholeRun || envelope.job_id === job.id) send(envelope.event.type, envelope, offset);
    });
    const keepalive = setInterval(() => write(': keepalive\n\n'), KEEPALIVE_MS);
    try {
      // The run's end (not an early return), in slices so a caller who lost access stops hearing.
      while (open) {
        const outcome = await this.results.waitFor(caller, job.id, WAIT_SLICE_MS, false);
        if (outcome.completed) {
          // What the steps said before they ended is all in the stream by now: relayed first.
          await reader.caughtUp();
          send('end', { status: outcome.status, success: outcome.success ?? null } satisfies JobStreamEnd);
          break;
        }
      }
    } catch (error) {
      send('error', {
        message: error instanceof Error ? error.message : String(error),
      } satisfies JobStreamError);
    } finally {
      clearInterval(keepalive);
      reader.close();
      await relaying;
      response.end();
    }
  }
}

/** The offset a reconnecting client saw last: `Last-Event-ID`, else `?after=`; 0 for none. */
function resumeOffset(request: IncomingMessage): number {
  const header = request.headers['last-event-id'];
  const query = new URL(request.url ?? '/', 'http://local').searchParams.get('after');
  const given = (Array.isArray(header) ? header[0] : header) ?? query ?? undefined;
  if (given === undefined || given === '') return 0;
  if (!/^\d+$/.test(given))
    throw new MeshError(
      'VALIDATION_FAILED',
      `Last-Event-ID (or after): must be a stream offset, got "${given}"`,
      {
        param: 'after',
      },
    );
  return Number(given);
}
