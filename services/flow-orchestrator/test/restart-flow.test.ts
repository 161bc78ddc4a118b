import { randomBytes } from 'node:crypto';
import { failureOf, FlowmeshGrpcClient, runFlowmesh } from '@flowmesh/testing';
import { GRPC_STATUS } from '@flowmesh/contracts/grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli } from './support/build-cli.js';
import {
  endedJob,
  readJob,
  scriptStep,
  startRunApiMesh,
  type Member,
  type RunApiMesh,
} from './support/run-api-mesh.js';

const FLAG = `u/admin/restart_flag_${randomBytes(4).toString('hex')}`;
const FLOW = `u/admin/restart_three_${randomBytes(4).toString('hex')}`;
const LOOP_FLOW = `u/admin/restart_loop_${randomBytes(4).toString('hex')}`;
const BRANCH_FLOW = `u/admin/restart_branchall_${randomBytes(4).toString('hex')}`;

/**
 * a: a value no second run could make again (random); b: fails until the variable FLAG says
 * `fixed`; c: both results and one of its own.
 */
const threeSteps = {
  modules: [
    scriptStep('a', 'return crypto.randomUUID();'),
    scriptStep('b', "if (flag !== 'fixed') throw new Error('b is broken: ' + flag); return 'b ran';", {
      flag: `await variable('${FLAG}')`,
    }),
    scriptStep('c', 'return { a, b, c: crypto.randomUUID() };', { a: 'results.a', b: 'results.b' }),
  ],
};

/** A sequential for loop whose third iteration fails until FLAG is fixed, then a step after it. */
const loopFlow = {
  modules: [
    {
      id: 'l',
      value: {
        type: 'forloopflow',
        iterator: { type: 'javascript', expr: '[1, 2, 3]' },
        skip_failures: false,
        parallel: false,
        modules: [
          scriptStep(
            'body',
            "if (n === 3 && flag !== 'fixed') throw new Error('iteration 3 is broken'); return n + ':' + crypto.randomUUID();",
            { n: 'flow_input.iter.value', flag: `await variable('${FLAG}')` },
          ),
        ],
      },
    },
    scriptStep('after', 'return l.length;', { l: 'results.l' }),
  ],
};

/** A branch of one step returning `<name>:<a value no second run could make again>`. */
const branch = (name: string, fails = false) => ({
  modules: [
    scriptStep(
      name,
      `${fails ? `if (flag !== 'fixed') throw new Error('branch ${name} is broken'); ` : ''}return '${name}:' + crypto.randomUUID();`,
      fails ? { flag: `await variable('${FLAG}')` } : {},
    ),
  ],
});

/**
 * A step, a sequential branchall whose second branch fails until FLAG is fixed, and a step after
 * it reading the branches' results.
 */
const branchFlow = {
  modules: [
    scriptStep('first', 'return crypto.randomUUID();'),
    {
      id: 'ba',
      value: {
        type: 'branchall',
        parallel: false,
        branches: [branch('b0'), branch('b1', true), branch('b2')],
      },
    },
    scriptStep('after', 'return { ba, after: crypto.randomUUID() };', { ba: 'results.ba' }),
  ],
};

interface JobView {
  id: string;
  success?: boolean;
  result?: unknown;
  flow_status: {
    step: number;
    modules: Array<{ id: string; type: string; job?: string; flow_jobs?: string[] }>;
    restarted_from?: { flow_job_id: string; step_id: string; branch_or_iteration_n?: number | null };
  };
}

// Restarting an ended flow run from a step (Windmill's `jobs/restart/f/<id>/from/<step>`), on the
// real registry, orchestrator and worker, over HTTP, gRPC and the CLI: the steps before the point
// are not run again (their results are the earlier run's own), the step and those after run, the
// new job names the run it restarts; an unknown step and another user's run are refused.
describe('restart a flow run from a step', () => {
  let mesh: RunApiMesh;
  let grpc: FlowmeshGrpcClient;
  /**
   * The run of FLOW that failed at b, the run of LOOP_FLOW that failed in iteration 3, the run of
   * BRANCH_FLOW that failed in its second branch.
   */
  let failedRun: string;
  let failedLoopRun: string;
  let failedBranchRun: string;

  const inMain = () => ({ actor: { token: mesh.tokens.admin }, workspace: 'main' });
  const job = (id: string, as: Member = 'admin') => readJob<JobView>(mesh, id, as);
  const ended = (id: string) => endedJob<JobView>(mesh, id, 90_000);
  const failureText = async (promise: Promise<unknown>) =>
    failureOf(
      await promise.then(
        () => undefined,
        (error: unknown) => error,
      ),
    );

  beforeAll(async () => {
    buildCli();
    mesh = await startRunApiMesh({ orchestratorEnv: { FLOWMESH_GRPC_PORT: '0' } });
    grpc = new FlowmeshGrpcClient(mesh.orchestrator.extraAddress!);
    await mesh.items.createVariable({ ...inMain(), path: FLAG, value: 'broken' });
    await mesh.items.createFlow({ ...inMain(), path: FLOW, summary: 'three steps', value: threeSteps });
    await mesh.items.createFlow({ ...inMain(), path: LOOP_FLOW, summary: 'a loop', value: loopFlow });
    await mesh.items.createFlow({
      ...inMain(),
      path: BRANCH_FLOW,
      summary: 'a branchall',
      value: branchFlow,
    });
    const run = async (path: string) => {
      const answer = await mesh.http('POST', `jobs/run/f/${path}`, 'admin', { who: 'tester' });
      expect(answer.status, answer.text).toBe(201);
      return answer.text;
    };
    failedRun = await run(FLOW);
    failedLoopRun = await run(LOOP_FLOW);
    failedBranchRun = await run(BRANCH_FLOW);
    expect((await ended(failedRun)).success).toBe(false);
    expect((await ended(failedLoopRun)).success).toBe(false);
    const failedBranch = await ended(failedBranchRun);
    expect(failedBranch.success).toBe(false);
    // It failed inside the branchall, at its second branch: the first had succeeded.
    expect(failedBranch.flow_status.modules.map((module) => module.type)).toEqual([
      'Success',
      'Failure',
      'WaitingForPriorSteps',
    ]);
    expect(failedBranch.flow_status.modules[1].flow_jobs).toHaveLength(2);
    // The fix: what b (and iteration 3) read now says so.
    await mesh.items.updateVariable({ ...inMain(), path: FLAG, value: 'fixed' });
  }, 400_000);

  afterAll(async () => {
    grpc?.close();
    await mesh?.stop();
  });

  /** What a restart of `failedRun` from b must show: a reused, b and c run anew. */
  const expectRestartedFromB = async (newId: string) => {
    expect(newId).not.toBe(failedRun);
    const earlier = await job(failedRun);
    const restarted = await ended(newId);
    expect(restarted.success, JSON.stringify(restarted.result)).toBe(true);
    const earlierA = earlier.flow_status.modules[0];
    const result = restarted.result as { a: string; b: string; c: string };
    // a was read, not run again: its random value and its very job are the earlier run's.
    expect(result.a).toBe((await mesh.http('GET', `jobs/result_by_id/${failedRun}/a`, 'admin')).json());
    expect(restarted.flow_status.modules[0]).toMatchObject({ id: 'a', type: 'Success', job: earlierA.job });
    expect(result.b).toBe('b ran');
    expect(restarted.flow_status.modules.map((module) => module.type)).toEqual([
      'Success',
      'Success',
      'Success',
    ]);
    expect(restarted.flow_status.modules[1].job).not.toBe(earlier.flow_status.modules[1].job);
    expect(restarted.flow_status.restarted_from).toMatchObject({ flow_job_id: failedRun, step_id: 'b' });
    // No step job of the new run ran a.
    const steps = await mesh.http('GET', `jobs/list?parent_job=${newId}&is_flow_step=true`, 'admin');
    const stepIds = steps.json<Array<{ flow_step_id?: string }>>().map((step) => step.flow_step_id);
    expect(stepIds).not.toContain('a');
    expect(stepIds).toEqual(expect.arrayContaining(['b', 'c']));
    return restarted;
  };

  it('over HTTP: a new job from b reuses a, runs b and c, and names the run it restarts', async () => {
    const answer = await mesh.http('POST', `jobs/restart/f/${failedRun}/from/b`, 'admin');
    expect(answer.status, answer.text).toBe(201);
    expect(answer.contentType).toContain('text/plain');
    const restarted = await expectRestartedFromB(answer.text);
    // Same args as the run it restarts.
    const view = await mesh.http('GET', `jobs_u/get/${answer.text}`, 'admin');
    expect(view.json<{ args: unknown; script_path: string }>()).toMatchObject({
      args: { who: 'tester' },
      script_path: FLOW,
    });
    expect(restarted.flow_status.restarted_from?.branch_or_iteration_n ?? null).toBeNull();
  });

  it('refuses a step the flow does not have (400 naming it), and a run the caller may not read (404)', async () => {
    const unknown = await mesh.http('POST', `jobs/restart/f/${failedRun}/from/nope`, 'admin');
    expect(unknown.status).toBe(400);
    expect(unknown.json<{ message: string }>().message).toContain('"nope"');
    const noRun = await mesh.http('POST', `jobs/restart/f/${crypto.randomUUID()}/from/b`, 'admin');
    expect(noRun.status).toBe(404);
    for (const member of ['alice', 'bob'] as const) {
      const hidden = await mesh.http('POST', `jobs/restart/f/${failedRun}/from/b`, member);
      expect([member, hidden.status]).toEqual([member, 404]);
    }
    // Nothing was started by the refusals.
    const runs = await mesh.http('GET', `jobs/list?script_path_exact=${FLOW}`, 'admin');
    const restarts = await Promise.all(
      runs
        .json<Array<{ id: string }>>()
        .map(async (listed) => (await job(listed.id)).flow_status.restarted_from),
    );
    const fromNope = restarts.filter((from) => from?.step_id === 'nope');
    expect(fromNope).toEqual([]);
  });

  it('refuses a step whose earlier steps did not all succeed', async () => {
    const answer = await mesh.http('POST', `jobs/restart/f/${failedRun}/from/c`, 'admin');
    expect(answer.status).toBe(400);
    expect(answer.json<{ message: string }>().message).toContain('"b"');
  });

  it("restarts a sequential for loop at iteration 2: iterations 0 and 1 are the earlier run's", async () => {
    const earlier = await job(failedLoopRun);
    const earlierLoop = earlier.flow_status.modules[0];
    expect(earlierLoop.flow_jobs).toHaveLength(3);
    const answer = await mesh.http('POST', `jobs/restart/f/${failedLoopRun}/from/l/2`, 'admin');
    expect(answer.status, answer.text).toBe(201);
    const restarted = await ended(answer.text);
    expect(restarted.success, JSON.stringify(restarted.result)).toBe(true);
    expect(restarted.result).toBe(3);
    const loop = restarted.flow_status.modules[0];
    expect(loop.flow_jobs!.slice(0, 2)).toEqual(earlierLoop.flow_jobs!.slice(0, 2));
    expect(loop.flow_jobs![2]).not.toBe(earlierLoop.flow_jobs![2]);
    const results = (await mesh.http('GET', `jobs/result_by_id/${answer.text}/l`, 'admin')).json<string[]>();
    const earlierResults = (await mesh.http('GET', `jobs/result_by_id/${failedLoopRun}/l`, 'admin')).json<
      unknown[]
    >();
    expect(results.slice(0, 2)).toEqual(earlierResults.slice(0, 2));
    expect(results[2]).toMatch(/^3:/);
    expect(restarted.flow_status.restarted_from).toEqual({
      flow_job_id: failedLoopRun,
      step_id: 'l',
      branch_or_iteration_n: 2,
    });
    // Not a loop step, or more iterations than ran: refused, naming the reason.
    const notLoop = await mesh.http('POST', `jobs/restart/f/${answer.text}/from/after/1`, 'admin');
    expect([notLoop.status, notLoop.json<{ message: string }>().message]).toEqual([
      400,
      expect.stringContaining('not a for loop or a branchall'),
    ]);
    const tooFar = await mesh.http('POST', `jobs/restart/f/${failedLoopRun}/from/l/5`, 'admin');
    expect([tooFar.status, tooFar.json<{ message: string }>().message]).toEqual([
      400,
      expect.stringContaining('the earlier run started only 3 iterations'),
    ]);
  });

  it("restarts a sequential branchall at branch 1: branch 0 and the step before it are the earlier run's", async () => {
    const earlier = await job(failedBranchRun);
    const earlierBranches = earlier.flow_status.modules[1].flow_jobs!;
    const earlierResults = (await mesh.http('GET', `jobs/result_by_id/${failedBranchRun}/ba`, 'admin')).json<
      unknown[]
    >();
    const earlierFirst = (
      await mesh.http('GET', `jobs/result_by_id/${failedBranchRun}/first`, 'admin')
    ).json();
    expect(earlierResults[0]).toMatch(/^b0:/);

    const answer = await mesh.http('POST', `jobs/restart/f/${failedBranchRun}/from/ba/1`, 'admin');
    expect(answer.status, answer.text).toBe(201);
    const restarted = await ended(answer.text);
    expect(restarted.success, JSON.stringify(restarted.result)).toBe(true);
    expect(restarted.flow_status.restarted_from).toEqual({
      flow_job_id: failedBranchRun,
      step_id: 'ba',
      branch_or_iteration_n: 1,
    });
    expect(restarted.flow_status.modules.map((module) => module.type)).toEqual([
      'Success',
      'Success',
      'Success',
    ]);
    // The step before the branchall and branch 0 were read, not run again: their jobs and their
    // random values are the earlier run's.
    expect(restarted.flow_status.modules[0].job).toBe(earlier.flow_status.modules[0].job);
    expect((await mesh.http('GET', `jobs/result_by_id/${answer.text}/first`, 'admin')).json()).toBe(
      earlierFirst,
    );
    const branches = restarted.flow_status.modules[1].flow_jobs!;
    expect(branches).toHaveLength(3);
    expect(branches[0]).toBe(earlierBranches[0]);
    // Branch 1 (which failed) and branch 2 (which never ran) ran in the new run, as did the step after.
    expect(branches[1]).not.toBe(earlierBranches[1]);
    expect(branches[2]).toBeDefined();
    const result = restarted.result as { ba: string[]; after: string };
    expect(result.ba[0]).toBe(earlierResults[0]);
    expect(result.ba[1]).toMatch(/^b1:/);
    expect(result.ba[2]).toMatch(/^b2:/);
    const steps = await mesh.http('GET', `jobs/list?parent_job=${answer.text}&is_flow_step=true`, 'admin');
    const children = steps.json<Array<{ id: string; flow_step_id?: string }>>();
    const childIds = children.map((child) => child.id);
    expect(childIds).not.toContain(branches[0]);
    expect(childIds).toEqual(expect.arrayContaining([branches[1], branches[2]]));
    expect(children.map((child) => child.flow_step_id)).not.toContain('first');

    // Restarted again from the step after the branchall: every branch keeps its result.
    const again = await mesh.http('POST', `jobs/restart/f/${answer.text}/from/after`, 'admin');
    expect(again.status, again.text).toBe(201);
    const rerun = await ended(again.text);
    expect(rerun.success, JSON.stringify(rerun.result)).toBe(true);
    expect(rerun.flow_status.modules[1]).toMatchObject({ type: 'Success', flow_jobs: branches });
    const rerunResult = rerun.result as { ba: string[]; after: string };
    expect(rerunResult.ba).toEqual(result.ba);
    expect(rerunResult.after).not.toBe(result.after);
    const rerunSteps = await mesh.http(
      'GET',
      `jobs/list?parent_job=${again.text}&is_flow_step=true`,
      'admin',
    );
    expect(rerunSteps.json<Array<{ flow_step_id?: string }>>().map((step) => step.flow_step_id)).toEqual([
      'after',
    ]);

    // A branch that did not run in the earlier run cannot be a restart point.
    const tooFar = await mesh.http('POST', `jobs/restart/f/${failedBranchRun}/from/ba/2`, 'admin');
    expect([tooFar.status, tooFar.json<{ message: string }>().message]).toEqual([
      400,
      expect.stringContaining('the earlier run started only 2 branches'),
    ]);
  });

  it('over gRPC: RestartFlow, with the same refusals', async () => {
    const call = <T>(request: Record<string, unknown>, as: Member = 'admin') =>
      grpc.call<T>('Jobs', 'RestartFlow', { workspace: 'main', ...request }, mesh.tokens[as]);
    const reply = await call<{ job_id: string }>({ id: failedRun, step_id: 'b' });
    await expectRestartedFromB(reply.job_id);
    const unknown = await failureText(call({ id: failedRun, step_id: 'nope' }));
    expect([unknown.code, unknown.meshCode]).toEqual([GRPC_STATUS.INVALID_ARGUMENT, 'VALIDATION_FAILED']);
    expect(unknown.details).toContain('"nope"');
    const hidden = await failureText(call({ id: failedRun, step_id: 'b' }, 'bob'));
    expect([hidden.code, hidden.meshCode]).toEqual([GRPC_STATUS.NOT_FOUND, 'NOT_FOUND']);
  });

  it('over the CLI: flowmesh jobs restart <id> --from <step>', async () => {
    const env = { FLOWMESH_URL: mesh.orchestrator.url, FLOWMESH_TOKEN: mesh.tokens.admin };
    const done = await runFlowmesh(['jobs', 'restart', failedRun, '--from', 'b'], { env });
    expect(done.code, done.stderr).toBe(0);
    await expectRestartedFromB(done.stdout.trim());
    const unknown = await runFlowmesh(['jobs', 'restart', failedRun, '--from', 'nope'], { env });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('"nope"');
    const asBob = await runFlowmesh(['jobs', 'restart', failedRun, '--from', 'b'], {
      env: { ...env, FLOWMESH_TOKEN: mesh.tokens.bob },
    });
    expect([asBob.code, asBob.stderr]).toEqual([1, expect.stringContaining('NOT_FOUND')]);
  });
});
