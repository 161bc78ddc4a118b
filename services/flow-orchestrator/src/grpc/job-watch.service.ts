import { isTerminalJobStatus, type Actor, type AgentStreamEnvelope, type Job } from '@flowmesh/contracts';
import {
  agentEnvelopeToGrpcJson,
  jsonToGrpcMessage,
  type JobWatchEvent,
  type StepEvent,
  type WatchJobRequest,
} from '@flowmesh/contracts/grpc';
import { InjectMeshConnection, type MeshConnection } from '@flowmesh/messaging';
import { Injectable } from '@nestjs/common';
import { Observable } from 'rxjs';
import { JobVisibility } from '../access/job-visibility.service.js';
import { ActorCallerResolver } from '../http/actor-caller.resolver.js';
import type { Caller } from '../http/caller.js';
import { JobQueries } from '../jobs/job-queries.js';
import { RunStreamReader } from '../run-api/run-stream.reader.js';
import { WaitForResultService } from '../run-api/wait-for-result.service.js';
import { formatWatchOffset, parseWatchOffset, type WatchOffset } from './job-watch-offset.js';
import { newStepEvents } from './step-events.js';

/** How long the watch waits for the run's end before it looks at its steps again. */
const STEP_POLL_MS = 200;
/** How often the caller's right to read the job is checked again while it runs. */
const ACCESS_RECHECK_MS = 30_000;

/**
 * `flowmesh.v1.Jobs/WatchJob`: a run's events, from the start or after an offset. What its
 * streaming AI steps say comes from the run's stream (as `GET jobs_u/stream/{id}` relays it);
 * steps starting and finishing are read from its flow status as it changes; then its end. Every
 * event carries the offset after it (`job-watch-offset.ts`), so a client that lost the stream
 * resumes without a gap or a repeat.
 */
@Injectable()
export class JobWatch {
  constructor(
    private readonly callers: ActorCallerResolver,
    private readonly visibility: JobVisibility,
    private readonly results: WaitForResultService,
    private readonly jobs: JobQueries,
    @InjectMeshConnection() private readonly conn: MeshConnection,
  ) {}

  watch(actor: Actor, request: WatchJobRequest): Observable<object> {
    return new Observable<object>((subscriber) => {
      const stop = new AbortController();
      const emit = (event: JobWatchEvent) => {
        if (!stop.signal.aborted) subscriber.next(jsonToGrpcMessage('flowmesh.v1.JobEvent', event));
      };
      this.run(actor, request, stop.signal, emit).then(
        () => subscriber.complete(),
        (error: unknown) => subscriber.error(error),
      );
      return () => stop.abort();
    });
  }

  private async run(
    actor: Actor,
    request: WatchJobRequest,
    signal: AbortSignal,
    emit: (event: JobWatchEvent) => void,
  ): Promise<void> {
    const offset = parseWatchOffset(request.after);
    const caller = await this.callers.callerOf({ actor, workspace: request.workspace });
    const job = await this.visibility.readable(caller, request.id);
    if (offset.ended) return;
    const wholeRun = job.id === job.root_job;
    const reader = await RunStreamReader.open(this.conn, job.root_job, offset.agent);
    const relaying = reader.relay((envelope: AgentStreamEnvelope, at: number) => {
      if (!wholeRun && envelope.job_id !== job.id) return;
      offset.agent = at;
      emit({ offset: formatWatchOffset(offset), agent: agentEnvelopeToGrpcJson(envelope) as never });
    });
    const close = () => reader.close();
    signal.addEventListener('abort', close);
    try {
      await this.followSteps(caller, job, offset, signal, emit, () => reader.caughtUp());
    } finally {
      signal.removeEventListener('abort', close);
      reader.close();
      await relaying;
    }
  }

  /** Step events as the flow status changes, until the job ends (then its end, after the stream caught up). */
  private async followSteps(
    caller: Caller,
    watched: Job,
    offset: WatchOffset,
    signal: AbortSignal,
    emit: (event: JobWatchEvent) => void,
    caughtUp: () => Promise<void>,
  ): Promise<void> {
    const step = (kind: 'step_started' | 'step_finished', event: StepEvent) =>
      emit({ offset: formatWatchOffset(offset), [kind]: event });
    let job = watched;
    let checkedAt = Date.now();
    while (!signal.aborted) {
      newStepEvents(job.flow_status, offset, step);
      if (isTerminalJobStatus(job.status)) {
        // What the steps said before the end is in the stream by now: relayed first.
        await caughtUp();
        offset.ended = true;
        emit({
          offset: formatWatchOffset(offset),
          end: { status: job.status, success: job.status === 'completed' },
        });
        return;
      }
      // Returns at once when the job ends; else a short wait before the steps are read again.
      await this.results.waitFor(caller, job.id, STEP_POLL_MS, false);
      const recheck = Date.now() - checkedAt > ACCESS_RECHECK_MS;
      if (recheck) checkedAt = Date.now();
      const next = recheck
        ? await this.visibility.readable(caller, job.id)
        : await this.jobs.find(caller.identity.workspace, job.id);
      if (!next) return;
      job = next;
    }
  }
}
