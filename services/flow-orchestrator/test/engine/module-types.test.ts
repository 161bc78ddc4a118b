import {
  agentStepContract,
  AgentStepStartRequestSchema,
  createOrchestratorAgentStepClient,
  type AgentStepStartRequest,
} from '@flowmesh/contracts';
import { waitFor } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identity, startEngineMesh, type EngineMesh } from '../support/engine-mesh.js';

/** A module that fails when it starts: its skip_if throws (no script runner needed). */
function failing(id: string): Record<string, unknown> {
  return {
    id,
    skip_if: { expr: `(() => { throw new Error('${id} failed') })()` },
    value: { type: 'identity' },
  };
}

const loop = (id: string, value: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  id,
  value: { type: 'forloopflow', skip_failures: false, ...value },
  ...extra,
});

describe('module types', () => {
  let mesh: EngineMesh;
  beforeAll(async () => {
    mesh = await startEngineMesh();
  }, 180_000);
  afterAll(async () => {
    await mesh?.stop();
  });

  it('identity passes its previous result on; a flow without modules returns its input', async () => {
    expect((await mesh.runFlow({ modules: [identity('a'), identity('b')] }, { x: 1 })).result).toEqual({
      x: 1,
    });
    expect((await mesh.runFlow({ modules: [] }, { y: 2 })).result).toEqual({ y: 2 });
  });

  it('forloopflow runs its body once per item, in order, with flow_input.iter; the result lists the iterations', async () => {
    const job = await mesh.runFlow(
      {
        modules: [
          loop('l', {
            iterator: { type: 'javascript', expr: 'flow_input.items.map((x) => x * 10)' },
            modules: [{ id: 'b', value: { type: 'identity' }, stop_after_if: { expr: 'false' } }],
          }),
        ],
      },
      { items: [1, 2, 3] },
    );
    expect(job.status).toBe('completed');
    const result = job.result as Array<{ iter: { index: number; value: number } }>;
    expect(result.map((r) => r.iter)).toEqual([
      { index: 0, value: 10 },
      { index: 1, value: 20 },
      { index: 2, value: 30 },
    ]);
    const module = job.flow_status!.modules[0];
    expect(module).toMatchObject({ id: 'l', type: 'Success', flow_jobs_success: [true, true, true] });
    expect(module.flow_jobs).toHaveLength(3);
    expect(module.iterator).toMatchObject({ itered: [10, 20, 30], itered_len: 3 });
  });

  it('a parallel forloop keeps iterator order, bounded by parallelism; squash gives the same result', async () => {
    const body = [{ id: 'b', value: { type: 'identity' } }];
    const iterator = { type: 'static', value: [5, 6, 7, 8, 9] };
    const parallel = await mesh.runFlow({
      modules: [
        loop('l', {
          iterator,
          parallel: true,
          parallelism: { type: 'javascript', expr: '2' },
          modules: body,
        }),
      ],
    });
    const squashed = await mesh.runFlow({ modules: [loop('l', { iterator, squash: true, modules: body })] });
    const values = (job: { result: unknown }) =>
      (job.result as Array<{ iter: { value: number } }>).map((r) => r.iter.value);
    expect(values(parallel)).toEqual([5, 6, 7, 8, 9]);
    expect(values(squashed)).toEqual([5, 6, 7, 8, 9]);
    expect(squashed.flow_status!.modules[0].flow_jobs).toBeUndefined();
  });

  it('skip_failures gives a failed iteration null; without it the loop fails with its results so far, the failed one its error', async () => {
    const modules = [
      {
        id: 'maybe',
        value: { type: 'identity' },
        skip_if: { expr: "flow_input.iter.value === 2 ? (() => { throw new Error('two') })() : false" },
      },
    ];
    const skipping = await mesh.runFlow({
      modules: [loop('l', { iterator: { type: 'static', value: [1, 2, 3] }, skip_failures: true, modules })],
    });
    expect(skipping.status).toBe('completed');
    expect(
      (skipping.result as unknown[]).map((r) =>
        r === null ? null : (r as { iter: { value: number } }).iter.value,
      ),
    ).toEqual([1, null, 3]);

    const failing = await mesh.runFlow({
      modules: [loop('l', { iterator: { type: 'static', value: [1, 2, 3] }, modules })],
    });
    expect(failing.status).toBe('failed');
    const [first, second, ...rest] = failing.result as unknown[];
    expect(rest).toEqual([]);
    expect((first as { iter: { value: number } }).iter.value).toBe(1);
    expect(second).toMatchObject({ error: { name: 'ExpressionError', step_id: 'maybe' } });
    const { message } = (second as { error: { message: string } }).error;
    expect(message).toContain('two');
    expect(message).toContain('value.modules[0].value.modules[0].skip_if.expr');
    // Sequential: the third iteration never ran.
    expect(failing.flow_status!.modules[0].flow_jobs).toHaveLength(2);
  });

  it('an empty iterator gives [], a non-array one fails naming the iterator field', async () => {
    expect(
      (await mesh.runFlow({ modules: [loop('l', { iterator: { type: 'static', value: [] }, modules: [] })] }))
        .result,
    ).toEqual([]);
    const job = await mesh.runFlow({
      modules: [loop('l', { iterator: { type: 'javascript', expr: '42' }, modules: [] })],
    });
    expect(job.status).toBe('failed');
    expect((job.result as { error: { message: string } }).error.message).toContain(
      'value.modules[0].value.iterator',
    );
  });

  it('whileloopflow: a step reads its own previous result through results.<id>, and its stop_after_if ends the loop', async () => {
    // `count` runs a flow of no modules, which returns its input: { n }.
    await mesh.items.createFlow({
      actor: mesh.admin,
      workspace: 'main',
      path: 'u/admin/echo',
      value: { modules: [] },
    });
    const job = await mesh.runFlow({
      modules: [
        {
          id: 'w',
          value: {
            type: 'whileloopflow',
            skip_failures: false,
            modules: [
              {
                id: 'count',
                value: {
                  type: 'flow',
                  path: 'u/admin/echo',
                  input_transforms: { n: { type: 'javascript', expr: '(results.count?.n ?? 0) + 1' } },
                },
                stop_after_if: { expr: 'result.n >= 4' },
              },
            ],
          },
        },
      ],
    });
    expect(job.result).not.toHaveProperty('error');
    expect(job.status).toBe('completed');
    expect(job.result).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }]);
  });

  it('whileloopflow: stop_after_if on the loop module sees the last iteration (iter.index counts)', async () => {
    const job = await mesh.runFlow({
      modules: [
        {
          id: 'w',
          stop_after_if: { expr: 'result.iter.index === 2' },
          value: { type: 'whileloopflow', skip_failures: false, modules: [identity('i')] },
        },
      ],
    });
    expect(job.status).toBe('completed');
    expect((job.result as Array<{ iter: { index: number; value: number } }>).map((r) => r.iter)).toEqual([
      { index: 0, value: 0 },
      { index: 1, value: 1 },
      { index: 2, value: 2 },
    ]);
  });

  it('branchone runs the first branch whose expr is true, else the default', async () => {
    const flow = (_x: number) => ({
      modules: [
        {
          id: 'b',
          value: {
            type: 'branchone',
            branches: [
              {
                expr: 'flow_input.x > 10',
                modules: [
                  { id: 'big', value: { type: 'identity' }, mock: { enabled: true, return_value: 'big' } },
                ],
              },
              {
                expr: 'flow_input.x > 5',
                modules: [
                  { id: 'mid', value: { type: 'identity' }, mock: { enabled: true, return_value: 'mid' } },
                ],
              },
            ],
            default: [
              { id: 'small', value: { type: 'identity' }, mock: { enabled: true, return_value: 'small' } },
            ],
          },
        },
      ],
    });
    const [big, mid, small] = await Promise.all([
      mesh.runFlow(flow(20), { x: 20 }),
      mesh.runFlow(flow(7), { x: 7 }),
      mesh.runFlow(flow(1), { x: 1 }),
    ]);
    expect([big.result, mid.result, small.result]).toEqual(['big', 'mid', 'small']);
    expect(big.flow_status!.modules[0].branch_chosen).toEqual({ type: 'branch', branch: 0 });
    expect(small.flow_status!.modules[0].branch_chosen).toEqual({ type: 'default' });
  });

  it('branchall runs every branch (parallel or in sequence); skip_failure keeps a failed branch from failing the module', async () => {
    const branches = (skip: boolean) => [
      { modules: [{ id: 'one', value: { type: 'identity' }, mock: { enabled: true, return_value: 1 } }] },
      { skip_failure: skip, modules: [failing('two')] },
      { modules: [{ id: 'three', value: { type: 'identity' }, mock: { enabled: true, return_value: 3 } }] },
    ];
    for (const parallel of [true, false]) {
      const ok = await mesh.runFlow({
        modules: [{ id: 'all', value: { type: 'branchall', parallel, branches: branches(true) } }],
      });
      expect(ok.status).toBe('completed');
      const [first, second, third] = ok.result as unknown[];
      expect([first, third]).toEqual([1, 3]);
      expect(second).toMatchObject({ error: { name: 'ExpressionError', step_id: 'two' } });
      expect(ok.flow_status!.modules[0].flow_jobs_success).toEqual([true, false, true]);

      const failed = await mesh.runFlow({
        modules: [{ id: 'all', value: { type: 'branchall', parallel, branches: branches(false) } }],
      });
      expect(failed.status).toBe('failed');
      // Every branch's result (a sequential branchall stops at the failed one), its error in its slot.
      expect(failed.result).toMatchObject(
        parallel ? [1, { error: { step_id: 'two' } }, 3] : [1, { error: { step_id: 'two' } }],
      );
      expect(failed.result).toHaveLength(parallel ? 3 : 2);
    }
  });

  it('flow runs the saved flow at its path as a subflow, with its input transforms', async () => {
    await mesh.items.createFlow({
      actor: mesh.admin,
      workspace: 'main',
      path: 'u/admin/double',
      value: { modules: [{ id: 'd', value: { type: 'identity' }, mock: { enabled: false } }] },
    });
    const job = await mesh.runFlow(
      {
        modules: [
          {
            id: 'sub',
            value: {
              type: 'flow',
              path: 'u/admin/double',
              input_transforms: { n: { type: 'javascript', expr: 'flow_input.n * 2' } },
            },
          },
        ],
      },
      { n: 21 },
    );
    expect(job.status).toBe('completed');
    expect(job.result).toEqual({ n: 42 });
    const child = await mesh.get(job.flow_status!.modules[0].job!);
    expect(child).toMatchObject({
      kind: 'flow',
      path: 'u/admin/double',
      parent_job: job.id,
      root_job: job.id,
    });
  });

  it('two saved flows that call each other end at FLOWMESH_MAX_FLOW_DEPTH with an error naming the cycle', async () => {
    const calls = (path: string) => ({
      modules: [{ id: 'next', value: { type: 'flow', path, input_transforms: {} } }],
    });
    await mesh.items.createFlow({
      actor: mesh.admin,
      workspace: 'main',
      path: 'u/admin/ping',
      value: calls('u/admin/pong'),
    });
    await mesh.items.createFlow({
      actor: mesh.admin,
      workspace: 'main',
      path: 'u/admin/pong',
      value: calls('u/admin/ping'),
    });
    const { job_id: id } = await mesh.jobs.runFlow({
      actor: mesh.admin,
      workspace: 'main',
      path: 'u/admin/ping',
      args: {},
    });
    const job = await mesh.waitEnded(id, 120_000);
    expect(job.status).toBe('failed');
    expect(job.result).toMatchObject({
      error: {
        name: 'FlowDepthExceeded',
        message: expect.stringMatching(
          /^flows nest 33 deep, past the limit of 32 \(FLOWMESH_MAX_FLOW_DEPTH\) \(u\/admin\/ping runs itself again: u\/admin\/ping -> u\/admin\/pong -> u\/admin\/ping\): u\/admin\/ping -> u\/admin\/pong -> /,
        ) as unknown,
      },
    });
    // A caller already that deep (an agent's flow tool passes its run's chain) is refused at once.
    await expect(
      mesh.jobs.runFlow({
        actor: mesh.admin,
        workspace: 'main',
        path: 'u/admin/ping',
        args: {},
        flow_chain: Array.from({ length: 32 }, (_, i) => `u/admin/level${i}`),
      }),
    ).rejects.toMatchObject({
      code: 'LIMIT_EXCEEDED',
      message: expect.stringContaining('past the limit of 32') as unknown,
    });
  });

  it('an aiagent step handed to an agent runtime parks the flow; its actions and end come back through orchestrator.agent_step.*', async () => {
    const started: AgentStepStartRequest[] = [];
    // A stand-in for agent-runtime, speaking its contract: accepts the step, then reports on it.
    const conn = mesh.registry.conn;
    const subscription = conn.nc.subscribe(conn.space.subject(agentStepContract.start.subject), {
      callback: (error, message) => {
        if (error) return;
        started.push(AgentStepStartRequestSchema.parse(message.json()));
        message.respond(JSON.stringify({ ok: true, data: { accepted: true } }));
      },
    });
    try {
      const id = await mesh.startFlow(
        {
          modules: [
            {
              id: 'agent',
              value: {
                type: 'aiagent',
                input_transforms: {
                  provider: {
                    type: 'static',
                    value: { kind: 'openai', resource: '$res:u/admin/openai', model: 'gpt-4o' },
                  },
                  user_message: { type: 'javascript', expr: "'hello ' + flow_input.name" },
                },
              },
            },
          ],
        },
        { name: 'ada' },
      );
      await waitFor(() => started.length === 1, { timeoutMs: 10_000, description: 'the step handed over' });
      const request = started[0];
      expect(request).toMatchObject({
        kind: 'aiagent',
        step_id: 'agent',
        flow_job: id,
        root_job: id,
        args: { user_message: 'hello ada' },
      });
      expect(request.job_token.length).toBeGreaterThan(0);
      expect((await mesh.get(id)).flow_status!.modules[0]).toMatchObject({
        type: 'InProgress',
        job: request.job_id,
      });
      const agentSteps = createOrchestratorAgentStepClient(mesh.registry.client);
      const inMain = { workspace: 'main', job_id: request.job_id };
      expect(
        (await agentSteps.reportAction({ ...inMain, action: { type: 'message', content: 'thinking' } }))
          .recorded,
      ).toBe(true);
      expect(
        (await agentSteps.complete({ ...inMain, success: true, result: { output: 'hi ada' } })).accepted,
      ).toBe(true);
      const job = await mesh.waitEnded(id);
      expect([job.status, job.result]).toEqual(['completed', { output: 'hi ada' }]);
      expect(job.flow_status!.modules[0]).toMatchObject({
        type: 'Success',
        agent_actions: [{ type: 'message', content: 'thinking' }],
        agent_actions_success: [true],
      });
    } finally {
      subscription.unsubscribe();
    }
  });

  it('aiagent and aidecision fail at once when no agent runtime answers', async () => {
    const job = await mesh.runFlow({
      modules: [
        {
          id: 'agent',
          value: {
            type: 'aiagent',
            input_transforms: {
              provider: {
                type: 'static',
                value: { kind: 'openai', resource: '$res:u/admin/openai', model: 'gpt-4o' },
              },
              user_message: { type: 'static', value: 'hi' },
            },
          },
        },
      ],
    });
    expect(job.status).toBe('failed');
    expect(job.result).toMatchObject({ error: { name: 'AgentRuntimeUnavailable', step_id: 'agent' } });
    expect((job.result as { error: { message: string } }).error.message).toContain(
      'no agent runtime answered',
    );
  });
});
