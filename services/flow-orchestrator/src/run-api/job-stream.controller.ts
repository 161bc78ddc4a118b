import type { ServerResponse } from 'node:http';
import { AgentStreamEnvelopeSchema, runStreamSubject } from '@flowmesh/contracts';
import { InjectMeshConnection, type MeshConnection } from '@flowmesh/messaging';
import { Controller, Get, Param, Res, UseGuards } from '@nestjs/common';
import { BearerAuthGuard } from '../http/bearer-auth.guard.js';
import type { Caller } from '../http/caller.js';
import { CurrentCaller } from '../http/current-caller.decorator.js';
import { jobIdParam } from '../http/job-id.param.js';
import { JobVisibility } from './job-visibility.service.js';
import { JobsEngine } from './jobs-engine.port.js';

/** A comment line while nothing streams, so proxies keep the connection open. */
const KEEPALIVE_MS = 15_000;
/** How long one wait for the run's end lasts before the caller's access is checked again. */
const WAIT_SLICE_MS = 30_000;

/**
 * `GET jobs_u/stream/{id}`: the stream of a run's AI steps with `streaming: true`, as server-sent
 * events (`event: token_delta`, `tool_call`, ..., each `data` an `AgentStreamEnvelope`), until
 * the run ends (`event: end` with its status). `id` is the run's job (every step's events) or one
 * step's job (its own). The stream is live: it starts when the caller connects.
 */
@Controller('api/w/:workspace')
@UseGuards(BearerAuthGuard)
export class JobStreamController {
  constructor(
    private readonly visibility: JobVisibility,
    private readonly engine: JobsEngine,
    @InjectMeshConnection() private readonly conn: MeshConnection,
  ) {}

  @Get('jobs_u/stream/:id')
  async stream(
    @CurrentCaller() caller: Caller,
    @Param('id', jobIdParam) id: string,
    @Res() response: ServerResponse,
  ): Promise<void> {
    const job = await this.visibility.readable(caller, id);
    const wholeRun = job.id === job.root_job;
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
    const send = (event: string, data: unknown) =>
      write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    const subscription = this.conn.nc.subscribe(this.conn.space.subject(runStreamSubject(job.root_job)), {
      callback: (error, message) => {
        if (error) return;
        let parsed;
        try {
          parsed = AgentStreamEnvelopeSchema.safeParse(message.json());
        } catch {
          return;
        }
        if (parsed.success && (wholeRun || parsed.data.job_id === job.id))
          send(parsed.data.event.type, parsed.data);
      },
    });
    const keepalive = setInterval(() => write(': keepalive\n\n'), KEEPALIVE_MS);
    try {
      // The run's end (not an early return), in slices so a caller who lost access stops hearing.
      while (open) {
        const outcome = await this.engine.waitForResult(caller, job.id, WAIT_SLICE_MS, false);
        if (outcome.completed) {
          send('end', { status: outcome.status, success: outcome.success ?? null });
          break;
        }
      }
    } catch (error) {
      send('error', { message: error instanceof Error ? error.message : String(error) });
    } finally {
      clearInterval(keepalive);
      subscription.unsubscribe();
      response.end();
    }
  }
}
