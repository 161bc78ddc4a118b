import { randomBytes } from 'node:crypto';
import { waitFor } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endedJob, readJob, scriptStep, startRunApiMesh, type RunApiMesh } from './support/run-api-mesh.js';

const FLAG = `u/admin/large_flag_${randomBytes(4).toString('hex')}`;
const FLOW = `u/admin/large_flow_${randomBytes(4).toString('hex')}`;
const PARKED_FLOW = `u/admin/large_parked_${randomBytes(4).toString('hex')}`;
/** Over the size from which a flow's module statuses are written as rows of their own (100). */
const MODULES = 150;

const identity = (n: number) => ({ id: `s${n}`, value: { type: 'identity' } });

/**
 * 150 modules: identity steps, `mid` (a random value no second run could make again) at 61, and
 * `last`, which fails until FLAG says `fixed` and returns mid's value.
 */
const largeFlow = {
  modules: [
    ...Array.from({ length: 60 }, (_, i) => identity(i + 1)),
    scriptStep('mid', 'return crypto.randomUUID();'),
    ...Array.from({ length: MODULES - 62 }, (_, i) => identity(i + 62)),
    scriptStep('last', "if (flag !== 'fixed') throw new Error('last is broken'); return { mid };", {
      flag: `await variable('${FLAG}')`,
      mid: 'results.mid',
    }),
  ],
};

/** 150 identity modules; the flow waits for an approval after the 120th. */
const parkedFlow = {
  modules: Array.from({ length: MODULES }, (_, i) =>
    i === 119 ? { ...identity(i + 1), suspend: { required_events: 1, timeout: 600 } } : identity(i + 1),
  ),
};

interface JobView {
  id: string;
  status?: string;
  success?: boolean;
  result?: unknown;
  flow_status: Record<string, unknown> & {
    modules: Array<{ id: string; type: string; job?: string }>;
  };
}

// A flow of more modules than MODULES_IN_ROWS_FROM writes each changed module as a row of its own
// (issue 34: a flow of 10 000 modules rewrote 1.6 MB of status per commit); every read sees the
// whole status as before: ended, waiting mid-way, and as the earlier run a restart reuses.
describe('a large flow: module statuses written a changed one at a time, read whole', () => {
  let mesh: RunApiMesh;
  let failedRun: string;

  const job = (id: string) => readJob<JobView>(mesh, id);
  const ended = (id: string) => endedJob<JobView>(mesh, id);
  const run = async (path: string) => {
    const answer = await mesh.http('POST', `jobs/run/f/${path}`, 'admin', {});
    expect(answer.status, answer.text).toBe(201);
    return answer.text;
  };

  beforeAll(async () => {
    mesh = await startRunApiMesh();
    const inMain = { actor: { token: mesh.tokens.admin }, workspace: 'main' };
    await mesh.items.createVariable({ ...inMain, path: FLAG, value: 'broken' });
    await mesh.items.createFlow({ ...inMain, path: FLOW, summary: 'large', value: largeFlow });
    await mesh.items.createFlow({
      ...inMain,
      path: PARKED_FLOW,
      summary: 'large, parked',
      value: parkedFlow,
    });
    failedRun = await run(FLOW);
  }, 400_000);

  afterAll(async () => {
    await mesh?.stop();
  });

  it('an ended run shows every module in order, as one status', async () => {
    const failed = await ended(failedRun);
    expect(failed.success).toBe(false);
    const modules = failed.flow_status.modules;
    expect(modules).toHaveLength(MODULES);
    expect(modules.map((module) => module.id)).toEqual(largeFlow.modules.map((module) => module.id));
    expect(modules.slice(0, MODULES - 1).every((module) => module.type === 'Success')).toBe(true);
    expect(modules[MODULES - 1]).toMatchObject({ id: 'last', type: 'Failure' });
    expect(modules[60]).toMatchObject({ id: 'mid', type: 'Success' });
    expect(modules[60].job).toMatch(/^[0-9a-f-]{36}$/);
    // Where the modules are kept is not the readers' business.
    expect(Object.keys(failed.flow_status)).not.toContain('_modules_in_rows');
  });

  it('a run waiting mid-way reads whole while it waits, and its modules go on from there', async () => {
    const id = await run(PARKED_FLOW);
    const waiting = await waitFor(
      async () => {
        const found = await job(id);
        if (found.success !== undefined)
          throw new Error(`the flow ended instead of waiting: ${JSON.stringify(found.result)}`);
        return found.status === 'suspended' ? found : undefined;
      },
      { timeoutMs: 120_000, description: 'the flow to wait for its approval' },
    );
    const types = waiting.flow_status.modules.map((module) => module.type);
    // As Windmill shows it: the module after the one that asked waits for the events.
    expect(types).toHaveLength(MODULES);
    expect(types.slice(0, 120).every((type) => type === 'Success')).toBe(true);
    expect(waiting.flow_status.modules[120]).toMatchObject({
      id: 's121',
      type: 'WaitingForEvents',
      job: waiting.flow_status.modules[119].job,
    });
    expect(types.slice(121).every((type) => type === 'WaitingForPriorSteps')).toBe(true);
    expect(waiting.flow_status.step).toBe(120);

    const cancel = await mesh.http('POST', `jobs_u/queue/cancel/${id}`, 'admin', { reason: 'enough' });
    expect(cancel.status, cancel.text).toBe(200);
    const cancelled = await ended(id);
    expect(cancelled.success).toBe(false);
    expect(cancelled.flow_status.modules).toHaveLength(MODULES);
    expect(cancelled.flow_status.modules.slice(0, 120).every((module) => module.type === 'Success')).toBe(
      true,
    );
  });

  it('a restart from the last step reuses the 149 before it, read from their rows', async () => {
    const earlier = await ended(failedRun);
    await mesh.items.updateVariable({
      actor: { token: mesh.tokens.admin },
      workspace: 'main',
      path: FLAG,
      value: 'fixed',
    });
    const answer = await mesh.http('POST', `jobs/restart/f/${failedRun}/from/last`, 'admin');
    expect(answer.status, answer.text).toBe(201);
    const restarted = await ended(answer.text);
    expect(restarted.success, JSON.stringify(restarted.result)).toBe(true);
    // mid was not run again: its random value and its very job are the earlier run's.
    const midResult = await mesh.http('GET', `jobs/result_by_id/${failedRun}/mid`, 'admin');
    expect(restarted.result).toEqual({ mid: midResult.json() });
    expect(restarted.flow_status.modules[60].job).toBe(earlier.flow_status.modules[60].job);
    expect(restarted.flow_status.modules.map((module) => module.type)).toEqual(
      Array.from({ length: MODULES }, () => 'Success'),
    );
  });
});
