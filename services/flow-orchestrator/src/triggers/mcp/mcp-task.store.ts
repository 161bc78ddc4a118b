import { randomUUID } from 'node:crypto';
import type { Job } from '@flowmesh/contracts';
import type { TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import { ErrorCode, McpError, type Result, type Task } from '@modelcontextprotocol/sdk/types.js';
import type { Caller } from '../../http/caller.js';
import type { CancelJobUseCase } from '../../jobs/cancel-job.use-case.js';
import { creatorOf } from '../../jobs/job-identity.js';
import type { JobQueries } from '../../jobs/job-queries.js';
import { callResultOf, runErrorMessage } from './mcp-call-result.js';

/** What a task reads and does: a job by id in the caller's workspace, and cancelling one. */
export interface TaskJobs {
  readonly jobs: Pick<JobQueries, 'find'>;
  readonly cancels: Pick<CancelJobUseCase, 'cancel'>;
}

/** A job's status as a task's: running, queued or waiting for an approval is `working`. */
export function taskOf(job: Job, pollIntervalMs: number): Task {
  const status =
    job.status === 'completed' || job.status === 'failed' || job.status === 'cancelled'
      ? job.status
      : 'working';
  const message =
    job.status === 'suspended'
      ? 'waiting for an approval'
      : job.status === 'failed'
        ? runErrorMessage(job.result)
        : undefined;
  return {
    taskId: job.id,
    status,
    // The job and its result stay as long as the workspace keeps its jobs.
    ttl: null,
    createdAt: job.created_at,
    lastUpdatedAt: job.completed_at ?? job.started_at ?? job.created_at,
    pollInterval: pollIntervalMs,
    ...(message === undefined ? {} : { statusMessage: message }),
  };
}

/**
 * MCP tasks (a handle instead of a held call, the SDK's experimental API) backed by jobs: a task's
 * id is its run's job id, so no state is kept here and any replica answers `tasks/get`,
 * `tasks/result` and `tasks/cancel` from the job itself. A task is the caller's when its job was
 * started over MCP by the token's user; any other id is not found. Made per request, for its caller.
 */
export class McpTaskStore implements TaskStore {
  constructor(
    private readonly caller: Caller,
    private readonly deps: TaskJobs,
    private readonly pollIntervalMs: number,
  ) {}

  /** A fresh id, the job id of the run the call then starts. */
  createTask(): Promise<Task> {
    const now = new Date().toISOString();
    return Promise.resolve({
      taskId: randomUUID(),
      status: 'working',
      ttl: null,
      createdAt: now,
      lastUpdatedAt: now,
      pollInterval: this.pollIntervalMs,
    });
  }

  async getTask(taskId: string): Promise<Task | null> {
    const job = await this.ownJob(taskId);
    return job ? taskOf(job, this.pollIntervalMs) : null;
  }

  /** The job holds its result: nothing to store. */
  storeTaskResult(): Promise<void> {
    return Promise.resolve();
  }

  async getTaskResult(taskId: string): Promise<Result> {
    const job = await this.ownJob(taskId);
    if (!job) throw new McpError(ErrorCode.InvalidParams, `task ${taskId} not found`);
    return callResultOf({ jobId: job.id, success: job.status === 'completed', result: job.result });
  }

  /** Only a cancel changes a task from outside: the run is cancelled. */
  async updateTaskStatus(taskId: string, status: Task['status'], statusMessage?: string): Promise<void> {
    if (status !== 'cancelled') return;
    const job = await this.ownJob(taskId);
    if (!job) throw new McpError(ErrorCode.InvalidParams, `task ${taskId} not found`);
    const { workspace, username } = this.caller.identity;
    await this.deps.cancels.cancel(
      workspace,
      job.id,
      username,
      statusMessage ?? 'cancelled by the MCP client',
    );
  }

  /** Not offered: a task is followed by the id its call answered. */
  listTasks(): Promise<{ tasks: Task[] }> {
    return Promise.resolve({ tasks: [] });
  }

  private async ownJob(taskId: string): Promise<Job | undefined> {
    if (!/^[0-9a-f-]{36}$/i.test(taskId)) return undefined;
    const job = await this.deps.jobs.find(this.caller.identity.workspace, taskId);
    if (!job || job.trigger_kind !== 'mcp' || job.created_by !== creatorOf(this.caller.identity))
      return undefined;
    return job;
  }
}
