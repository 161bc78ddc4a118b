import { MeshError, type CallerIdentity, type JobResultReply } from '@flowmesh/contracts';
import type { ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import type { Caller } from '../../http/caller.js';
import type { RunFlowUseCase } from '../../jobs/run-flow.use-case.js';
import type { RunScriptUseCase } from '../../jobs/run-script.use-case.js';
import type { WaitForResultService } from '../../run-api/wait-for-result.service.js';
import type { TriggerMetrics } from '../trigger.metrics.js';
import type { ToolSource } from './mcp-tool.js';
import { McpToolCallService, type ToolCallContext } from './mcp-tool-call.service.js';

const JOB = '0190a1b2-0000-7000-8000-000000000001';
const caller = { identity: { workspace: 'main' } as CallerIdentity, actor: { token: 't' } } as Caller;
const running: JobResultReply = { completed: false, started: true, status: 'running', result: null };
const item = (
  kind: 'script' | 'flow',
  path: string,
  schema: Record<string, unknown> | null = null,
): ToolSource => ({
  kind,
  path,
  summary: '',
  description: null,
  schema,
});
const done: JobResultReply = { completed: true, started: true, status: 'success', success: true, result: 7 };

/** The service over fakes: runs start at once, `replies` answer the waits in turn (then running). */
function harness(replies: JobResultReply[], options: { callTimeoutMs?: number; refuse?: MeshError } = {}) {
  const started: unknown[] = [];
  const waits: number[] = [];
  const counted: string[] = [];
  const start = (request: unknown) => {
    started.push(request);
    return options.refuse ? Promise.reject(options.refuse) : Promise.resolve(JOB);
  };
  const service = new McpToolCallService(
    { run: start } as unknown as RunFlowUseCase,
    { run: start } as unknown as RunScriptUseCase,
    {
      waitFor: (_caller: Caller, _id: string, timeoutMs: number) => {
        waits.push(timeoutMs);
        return Promise.resolve(replies.shift() ?? running);
      },
    } as unknown as WaitForResultService,
    { fired: () => counted.push('fired'), failed: () => counted.push('failed') } as unknown as TriggerMetrics,
    { callTimeoutMs: options.callTimeoutMs ?? 60_000, progressIntervalMs: 1_000 },
  );
  return { service, started, waits, counted };
}

function context(progressToken?: string, signal = new AbortController().signal) {
  const sent: ServerNotification[] = [];
  const ctx: ToolCallContext = {
    signal,
    ...(progressToken === undefined ? {} : { _meta: { progressToken } }),
    sendNotification: (notification) => {
      sent.push(notification);
      return Promise.resolve();
    },
  };
  return { ctx, sent };
}

describe('a tool call’s run and wait', () => {
  it('starts the item by path with the mcp trigger, then answers its result', async () => {
    const { service, started, counted } = harness([done]);
    const { ctx } = context();
    const result = await service.call(caller, item('flow', 'f/ops/x'), { a: 1 }, ctx);
    expect(started).toEqual([
      expect.objectContaining({ path: 'f/ops/x', args: { a: 1 }, trigger: { kind: 'mcp', path: 'f/ops/x' } }),
    ]);
    expect(result).toMatchObject({ content: [{ type: 'text', text: '7' }] });
    expect(counted).toEqual(['fired']);
  });

  it('sends progress 1, 2, ... between slices, only when the client gave a token', async () => {
    const withToken = harness([running, running, done]);
    const { ctx, sent } = context('p1');
    await withToken.service.call(caller, item('script', 'u/a/x'), {}, ctx);
    expect(sent.map((n) => [n.method, (n.params as { progress: number }).progress])).toEqual([
      ['notifications/progress', 1],
      ['notifications/progress', 2],
    ]);
    expect(withToken.waits).toEqual([1_000, 1_000, 1_000]);
    const without = harness([running, done]);
    const quiet = context();
    await without.service.call(caller, item('script', 'u/a/x'), {}, quiet.ctx);
    expect(quiet.sent).toEqual([]);
  });

  it('stops waiting when the call is cancelled, and past the call timeout, naming the job', async () => {
    const aborted = new AbortController();
    aborted.abort();
    const cancelled = await harness([running]).service.call(
      caller,
      item('script', 'u/a/x'),
      {},
      context('p', aborted.signal).ctx,
    );
    expect(cancelled).toMatchObject({
      isError: true,
      content: [{ text: `the call was cancelled; job ${JOB} still runs` }],
    });

    const slow = harness([], { callTimeoutMs: 1 });
    const timedOut = await slow.service.call(caller, item('script', 'u/a/x'), {}, context('p').ctx);
    expect(timedOut).toMatchObject({ isError: true });
    expect(JSON.stringify(timedOut)).toContain(`job ${JOB} did not complete within 1 ms`);
    // No slice waits past the deadline.
    expect(slow.waits.length).toBeGreaterThan(0);
    expect(slow.waits.every((ms) => ms === 1)).toBe(true);
  });

  it('checks the arguments against the item’s schema first: every problem, nothing run', async () => {
    const { service, started, counted } = harness([done]);
    const schema = {
      type: 'object',
      properties: { name: { type: 'string' }, n: { type: 'integer' } },
      required: ['name'],
    };
    const result = await service.call(caller, item('script', 'u/a/x', schema), { n: 'two' }, context().ctx);
    expect(result).toMatchObject({ isError: true });
    expect(JSON.stringify(result)).toContain(
      "the arguments do not fit script u/a/x's schema, nothing was run: args.name: must have required property 'name'; args.n: must be integer",
    );
    expect(started).toEqual([]);
    expect(counted).toEqual(['failed']);
  });

  it('answers a refused start as a tool error saying why', async () => {
    const { service, counted } = harness([], {
      refuse: new MeshError('PERMISSION_DENIED', 'no rights on u/a/x'),
    });
    const result = await service.call(caller, item('script', 'u/a/x'), {}, context().ctx);
    expect(result).toMatchObject({
      isError: true,
      content: [{ text: 'script u/a/x was not run: no rights on u/a/x' }],
    });
    expect(counted).toEqual(['failed']);
  });
});
