import { randomUUID } from 'node:crypto';
import {
  JobResultMaybeSchema,
  JobStreamEndSchema,
  JobUpdateSchema,
  ResumeJobReplySchema,
  type JobResultMaybe,
  type JobStreamEnd,
  type JobUpdate,
  type RecordingRef,
  type ResumeOutcome,
} from '@flowmesh/contracts';
import { createParser } from 'eventsource-parser';
import { z } from 'zod';
import { RegistryRequestError, type RegistryHttp } from '../sync/registry-connection.js';

export interface ResumeRequest {
  readonly payload: unknown;
  readonly approve: boolean;
  readonly resumeId?: number;
}

/** How a flow run starts: `memoryId` names the memory its AI agent steps keep (a conversation). */
export interface FlowRunOptions {
  readonly memoryId?: string;
  /** Resolve every linked agent once, when the run is enqueued (`pin_agents`): an eval run's. */
  readonly pinAgents?: boolean;
  /** Record the run's model answers, or answer its model calls from a recording (`RecordingRef`). */
  readonly recording?: RecordingRef;
}

/**
 * The run's query: its own job id, chosen here, so a request cut by a crash or a dropped
 * connection is sent again safely (the same id twice starts one run), and its memory id.
 */
function runQuery(jobId: string, run: FlowRunOptions): string {
  const memory = run.memoryId === undefined ? '' : `&memory_id=${encodeURIComponent(run.memoryId)}`;
  const recording =
    run.recording === undefined
      ? ''
      : `&recording_mode=${run.recording.mode}&recording_id=${run.recording.id}`;
  return `?job_id=${jobId}${memory}${run.pinAgents ? '&pin_agents=true' : ''}${recording}`;
}

/** Sends of a run request whose answer was lost (unreachable, or a proxy's 502/503/504). */
const RUN_ATTEMPTS = 4;

/** Sends a run request until it is answered, with its job id fixed: at most one run starts. */
async function startOnce(send: (jobId: string) => Promise<string>): Promise<string> {
  const jobId = randomUUID();
  for (let attempt = 1; ; attempt++) {
    try {
      return await send(jobId);
    } catch (error) {
      const lost =
        error instanceof RegistryRequestError &&
        (error.status === 0 || [502, 503, 504].includes(error.status));
      if (!lost || attempt >= RUN_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500 * 2 ** (attempt - 1)));
    }
  }
}

/** Times a dropped stream is opened again before the CLI gives up. */
const STREAM_RECONNECTS = 5;

/** The orchestrator's Windmill-shaped jobs API under `/api/w/<workspace>/`, as the CLI uses it. */
export class JobsApi {
  constructor(private readonly http: RegistryHttp) {}

  get workspace(): string {
    return this.http.workspace;
  }

  runFlowPreview(
    value: unknown,
    args: Record<string, unknown>,
    path?: string,
    run: FlowRunOptions = {},
  ): Promise<string> {
    return startOnce((jobId) =>
      this.http.postText(`jobs/run/preview_flow${runQuery(jobId, run)}`, {
        value,
        args,
        ...(path === undefined ? {} : { path }),
        ...(run.pinAgents ? { pin_agents: true } : {}),
      }),
    );
  }

  runFlowByPath(path: string, args: Record<string, unknown>, run: FlowRunOptions = {}): Promise<string> {
    return startOnce((jobId) =>
      this.http.postText(`jobs/run/f/${encodePath(path)}${runQuery(jobId, run)}`, args),
    );
  }

  getUpdate(id: string, logOffset: number): Promise<JobUpdate> {
    return this.http.get(`jobs_u/getupdate/${id}?log_offset=${logOffset}`, JobUpdateSchema);
  }

  getResultMaybe(id: string): Promise<JobResultMaybe> {
    return this.http.get(`jobs_u/completed/get_result_maybe/${id}`, JobResultMaybeSchema);
  }

  /** The job in Windmill's shape, printed as it comes. */
  getJob(id: string): Promise<Record<string, unknown>> {
    return this.http.get(`jobs_u/get/${id}`, z.record(z.string(), z.unknown()));
  }

  /**
   * The run's stream (`jobs_u/stream`): each server-sent event to `onEvent` as it comes, until
   * the run ends; resolves with the `end` event's data. A connection that drops before the end is
   * opened again after the last offset seen (`?after=`), so nothing is missed or seen twice.
   */
  async stream(id: string, onEvent: (event: string, data: unknown) => void): Promise<JobStreamEnd> {
    let after: string | undefined;
    for (let attempt = 0; ; attempt++) {
      const response = await this.http.open(
        `jobs_u/stream/${id}${after === undefined ? '' : `?after=${after}`}`,
      );
      let end: { data: unknown } | undefined;
      const parser = createParser({
        onEvent: (message) => {
          const data = JSON.parse(message.data) as unknown;
          if (message.event === 'end') end = { data };
          else onEvent(message.event ?? 'message', data);
          if (message.id) after = message.id;
        },
      });
      const decoder = new TextDecoder();
      try {
        for await (const chunk of response.body ?? [])
          parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
      } catch (error) {
        if (attempt >= STREAM_RECONNECTS) throw error;
      }
      if (end) return JobStreamEndSchema.parse(end.data);
      if (attempt >= STREAM_RECONNECTS)
        throw new Error(`the stream of job ${id} closed ${STREAM_RECONNECTS + 1} times before the run ended`);
    }
  }

  getLogs(id: string): Promise<string> {
    return this.http.getText(`jobs_u/get_logs/${id}`);
  }

  /**
   * A new run of the ended flow run `id` from its step `stepId` (`branchOrIterationN`: of a
   * sequential for loop or branchall, the iteration or branch to go on from); the new job's id.
   */
  restart(id: string, stepId: string, branchOrIterationN?: number): Promise<string> {
    const at = branchOrIterationN === undefined ? '' : `/${branchOrIterationN}`;
    return startOnce((jobId) =>
      this.http.postText(`jobs/restart/f/${id}/from/${encodeURIComponent(stepId)}${at}?job_id=${jobId}`, {}),
    );
  }

  cancel(id: string, reason?: string): Promise<string> {
    return this.http.postText(`jobs_u/queue/cancel/${id}`, reason === undefined ? {} : { reason });
  }

  resume(id: string, request: ResumeRequest): Promise<{ outcome: ResumeOutcome }> {
    const query = new URLSearchParams({ approve: String(request.approve) });
    if (request.resumeId !== undefined) query.set('resume_id', String(request.resumeId));
    return this.http.post(
      `jobs/flow/resume/${id}?${query.toString()}`,
      request.payload ?? {},
      ResumeJobReplySchema,
    );
  }
}

function encodePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}
