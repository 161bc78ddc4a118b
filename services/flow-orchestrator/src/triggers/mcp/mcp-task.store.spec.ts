import type { CallerIdentity, Job } from '@flowmesh/contracts';
import { describe, expect, it } from 'vitest';
import type { Caller } from '../../http/caller.js';
import { McpTaskStore, taskOf } from './mcp-task.store.js';

const ID = '0190a1b2-0000-7000-8000-000000000002';
const caller = {
  identity: { kind: 'user', workspace: 'main', username: 'ada' } as CallerIdentity,
  actor: { token: 't' },
} as Caller;

function job(fields: Partial<Job>): Job {
  return {
    id: ID,
    status: 'running',
    result: null,
    created_by: 'ada',
    trigger_kind: 'mcp',
    created_at: '2026-12-07T18:00:00.000Z',
    started_at: '2026-12-07T18:00:01.000Z',
    completed_at: null,
    ...fields,
  } as Job;
}

function store(found: Job | undefined) {
  const cancelled: unknown[][] = [];
  const tasks = new McpTaskStore(
    caller,
    {
      jobs: { find: () => Promise.resolve(found) },
      cancels: {
        cancel: (...args: unknown[]) => {
          cancelled.push(args);
          return Promise.resolve(true);
        },
      },
    },
    500,
  );
  return { tasks, cancelled };
}

describe('MCP tasks backed by jobs', () => {
  it('show a job’s status as a task’s, a failure with its message', () => {
    expect(taskOf(job({ status: 'queued' }), 500)).toMatchObject({
      taskId: ID,
      status: 'working',
      pollInterval: 500,
    });
    expect(taskOf(job({ status: 'suspended' }), 500)).toMatchObject({
      status: 'working',
      statusMessage: 'waiting for an approval',
    });
    expect(
      taskOf(
        job({
          status: 'failed',
          result: { error: { message: 'boom' } },
          completed_at: '2026-12-07T18:00:09.000Z',
        }),
        500,
      ),
    ).toMatchObject({ status: 'failed', statusMessage: 'boom', lastUpdatedAt: '2026-12-07T18:00:09.000Z' });
    expect(taskOf(job({ status: 'completed' }), 500).status).toBe('completed');
    expect(taskOf(job({ status: 'cancelled' }), 500).status).toBe('cancelled');
  });

  it('are the caller’s only when the job is an MCP run of the token’s user', async () => {
    expect(await store(job({})).tasks.getTask(ID)).toMatchObject({ taskId: ID });
    expect(await store(job({ created_by: 'bob' })).tasks.getTask(ID)).toBeNull();
    expect(await store(job({ trigger_kind: 'webhook' })).tasks.getTask(ID)).toBeNull();
    expect(await store(undefined).tasks.getTask(ID)).toBeNull();
    expect(await store(job({})).tasks.getTask('not-a-job-id')).toBeNull();
    await expect(store(undefined).tasks.getTaskResult(ID)).rejects.toThrow(/not found/);
  });

  it('answer the run’s result, and cancel the run when the task is cancelled', async () => {
    const { tasks, cancelled } = store(job({ status: 'completed', result: { n: 1 } }));
    expect(await tasks.getTaskResult(ID)).toMatchObject({ content: [{ type: 'text', text: '{"n":1}' }] });
    await tasks.updateTaskStatus(ID, 'cancelled', 'Client cancelled task execution.');
    expect(cancelled).toEqual([['main', ID, 'ada', 'Client cancelled task execution.']]);
    await tasks.updateTaskStatus(ID, 'completed');
    expect(cancelled).toHaveLength(1);
  });
});
