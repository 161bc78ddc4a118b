import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createOrchestratorJobsClient,
  createOrchestratorSchedulesClient,
  isTerminalJobStatus,
  type MeshError,
  type JobSummary,
  type OrchestratorJobsClient,
  type OrchestratorSchedulesClient,
  type Schedule,
} from '@flowmesh/contracts';
import { scriptScratchDir, startTestService, waitFor, type TestService } from '@flowmesh/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flowOrchestratorDefinition } from '../src/flow-orchestrator.definition.js';
import { RESUME_KEY, scriptStep, startRunApiMesh, type RunApiMesh } from './support/run-api-mesh.js';

// Schedules on the real mesh: the registry, two orchestrator replicas (service role) on one
// database, one worker. Windmill's schedule routes, checks, firing once per tick whatever the
// replica, the handlers with Windmill's arguments, no_flow_overlap, paused_until and preview.
// A test waits for several ticks and their handlers' runs: with every core busy, minutes.
describe('schedules', { timeout: 300_000 }, () => {
  let mesh: RunApiMesh;
  let second: TestService;
  let jobs: OrchestratorJobsClient;
  let schedules: OrchestratorSchedulesClient;
  // Scripts run as the sandbox's user: the mode file sits where they may read it.
  const dir = scriptScratchDir('fm-schedules-');
  const admin = () => ({ actor: { token: mesh.tokens.admin }, workspace: 'main' });

  beforeAll(async () => {
    mesh = await startRunApiMesh();
    // A second replica of the service role on the same database: both tick.
    second = await startTestService(flowOrchestratorDefinition, {
      env: {
        FLOWMESH_SUBJECT_PREFIX: mesh.registry.config.subjectPrefix,
        FLOWMESH_RESUME_KEY: RESUME_KEY,
        DATABASE_URL: mesh.orchestrator.config.database.url,
      },
    });
    jobs = createOrchestratorJobsClient(mesh.registry.client);
    schedules = createOrchestratorSchedulesClient(mesh.registry.client);
    const inMain = admin();
    await mesh.items.createFlow({
      ...inMain,
      path: 'u/admin/tick',
      summary: 'tick',
      value: { modules: [scriptStep('a', 'return x;', { x: 'flow_input.x' })] },
      schema: {
        type: 'object',
        properties: { x: { type: 'number' } },
        required: ['x'],
      },
    });
    await mesh.items.createFlow({
      ...inMain,
      path: 'u/admin/flaky',
      summary: 'fails, 2.5 s later, while the mode file says so',
      value: {
        modules: [
          scriptStep(
            'a',
            `const { readFileSync } = await import('node:fs');
             if (readFileSync(${JSON.stringify(join(dir, 'mode'))}, 'utf8').trim() === 'fail') {
               await new Promise((r) => setTimeout(r, 2500));
               throw new Error('boom');
             }
             return 'fine';`,
          ),
        ],
      },
    });
    await mesh.items.createFlow({
      ...inMain,
      path: 'u/admin/slow',
      summary: 'takes 2.5 s',
      value: { modules: [scriptStep('a', 'await new Promise((r) => setTimeout(r, 2500)); return 1;')] },
    });
    for (const name of ['on_failure', 'on_success'])
      await mesh.items.createScript({
        ...inMain,
        path: `u/admin/${name}`,
        summary: name,
        language: 'bun',
        content: 'export async function main() { return "handled"; }',
      });
    await mesh.items.createFlow({
      ...inMain,
      path: 'u/admin/on_recovery',
      summary: 'recovery',
      value: { modules: [{ id: 'a', value: { type: 'identity' } }] },
    });
  }, 180_000);

  afterAll(async () => {
    await second?.stop().catch(() => undefined);
    await mesh?.stop();
  });

  const base = {
    schedule: '0 0 12 * * *',
    timezone: 'Europe/Paris',
    script_path: 'u/admin/tick',
    is_flow: true,
  };
  const issues = (answer: { json<T>(): T }) =>
    answer.json<{ details: { issues: Array<{ path: string }> } }>().details.issues.map((issue) => issue.path);

  /** The labels of a member's API tokens that schedules minted. */
  const tokenLabels = async (member: 'admin' | 'bob') =>
    (await mesh.identity.listApiTokens({ actor: { token: mesh.tokens[member] }, workspace: 'main' })).tokens
      .map((token) => token.label ?? '')
      .filter((label) => label.startsWith('trigger schedule:'));

  /**
   * The runs a schedule started (root jobs of its target that name it as their trigger), but the
   * one started ahead of a tick that had not come when the schedule was disabled: as Windmill
   * clears that queued job, it is cancelled (and checked to be so once, below), by the disable or,
   * when a replica was starting it as the disable landed, by that replica.
   */
  const runsOf = async (target: string, schedule: string): Promise<JobSummary[]> => {
    const { jobs: listed } = await jobs.list({ ...admin(), path: target, limit: 1_000 });
    return listed.filter(
      (job) =>
        job.trigger_kind === 'schedule' &&
        job.trigger === schedule &&
        !(
          job.status === 'cancelled' &&
          [`schedule ${schedule} was disabled`, `schedule ${schedule} changed as this run started`].includes(
            job.canceled_reason ?? '',
          )
        ),
    );
  };
  const ended = (runs: readonly JobSummary[]) => runs.filter((job) => isTerminalJobStatus(job.status));
  const disable = (path: string) => schedules.setEnabled({ ...admin(), path, enabled: false });
  const allEnded = (target: string, schedule: string) =>
    waitFor(
      async () => {
        const runs = await runsOf(target, schedule);
        return runs.every((job) => isTerminalJobStatus(job.status)) ? runs : undefined;
      },
      { timeoutMs: 90_000, description: `every run of ${schedule} to end` },
    );

  it('creates, reads, lists, updates, disables and deletes schedules as Windmill does', async () => {
    const created = await mesh.http('POST', 'schedules/create', 'admin', {
      ...base,
      path: 'u/admin/noon',
      args: { x: 1 },
      summary: 'at noon',
      enabled: false,
      on_failure: 'script/u/admin/on_failure',
    });
    expect([created.status, created.text]).toEqual([201, 'u/admin/noon']);
    const got = await mesh.http('GET', 'schedules/get/u/admin/noon', 'admin');
    expect(got.status).toBe(200);
    expect(got.json<Schedule>()).toMatchObject({
      path: 'u/admin/noon',
      schedule: '0 0 12 * * *',
      timezone: 'Europe/Paris',
      script_path: 'u/admin/tick',
      is_flow: true,
      args: { x: 1 },
      enabled: false,
      edited_by: 'admin',
      permissioned_as: 'u/admin',
      email: 'admin@example.test',
      on_failure: 'script/u/admin/on_failure',
      summary: 'at noon',
      no_flow_overlap: false,
      paused_until: null,
      cron_version: 'v2',
      error: null,
    });
    expect(JSON.stringify(got.json())).not.toMatch(/owner_token|fm_/);
    expect((await mesh.http('GET', 'schedules/exists/u/admin/noon', 'admin')).json()).toBe(true);
    expect((await mesh.http('GET', 'schedules/exists/u/admin/nothing', 'admin')).json()).toBe(false);
    const again = await mesh.http('POST', 'schedules/create', 'admin', {
      ...base,
      path: 'u/admin/noon',
      args: { x: 1 },
    });
    expect([again.status, again.json<{ code: string }>().code]).toEqual([409, 'CONFLICT']);

    const listed = await mesh.http('GET', 'schedules/list?path_start=u/admin/no&is_flow=true', 'admin');
    expect(listed.json<Schedule[]>().map((s) => s.path)).toEqual(['u/admin/noon']);
    expect((await mesh.http('GET', 'schedules/list?args={"x":2}', 'admin')).json()).toEqual([]);

    const updated = await mesh.http('POST', 'schedules/update/u/admin/noon', 'admin', {
      schedule: '0 30 6 * * 1-5',
      timezone: 'UTC',
      args: { x: 2 },
    });
    expect([updated.status, updated.text]).toEqual([200, 'u/admin/noon']);
    expect((await schedules.get({ ...admin(), path: 'u/admin/noon' })).schedule).toBe('0 30 6 * * 1-5');
    // The owner's token for the schedule: one, replaced by each save.
    expect(await tokenLabels('admin')).toEqual(['trigger schedule:main/u/admin/noon']);
    const enabled = await mesh.http('POST', 'schedules/setenabled/u/admin/noon', 'admin', { enabled: true });
    expect(enabled.status).toBe(200);
    expect((await schedules.get({ ...admin(), path: 'u/admin/noon' })).enabled).toBe(true);

    // Others see only what they may read: bob's schedules are bob's.
    await mesh.items.createFlow({
      actor: { token: mesh.tokens.bob },
      workspace: 'main',
      path: 'u/bob/mine',
      summary: 'mine',
      value: { modules: [{ id: 'a', value: { type: 'identity' } }] },
    });
    const bobs = await mesh.http('POST', 'schedules/create', 'bob', {
      ...base,
      path: 'u/bob/daily',
      script_path: 'u/bob/mine',
    });
    expect(bobs.status).toBe(201);
    expect(await tokenLabels('bob')).toEqual(['trigger schedule:main/u/bob/daily']);
    expect((await mesh.http('GET', 'schedules/get/u/bob/daily', 'alice')).status).toBe(404);
    expect((await mesh.http('GET', 'schedules/list', 'alice')).json()).toEqual([]);
    expect((await mesh.http('DELETE', 'schedules/delete/u/bob/daily', 'alice')).status).toBe(404);
    const notHis = await mesh.http('POST', 'schedules/create', 'alice', {
      ...base,
      path: 'u/bob/sneaky',
      script_path: 'u/alice/x',
    });
    expect(notHis.status).toBe(403);
    expect(
      (await mesh.http('GET', 'schedules/list', 'admin'))
        .json<Schedule[]>()
        .map((s) => s.path)
        .sort(),
    ).toEqual(['u/admin/noon', 'u/bob/daily']);

    const deleted = await mesh.http('DELETE', 'schedules/delete/u/bob/daily', 'bob');
    expect([deleted.status, deleted.text]).toEqual([200, 'schedule u/bob/daily deleted']);
    expect((await mesh.http('GET', 'schedules/get/u/bob/daily', 'bob')).status).toBe(404);
    expect(await tokenLabels('bob')).toEqual([]);
    await expect(schedules.delete({ ...admin(), path: 'u/admin/noon' })).resolves.toEqual({
      path: 'u/admin/noon',
      deleted: true,
    });
    expect(
      (await mesh.http('POST', 'schedules/create', undefined, { ...base, path: 'u/admin/x' })).status,
    ).toBe(401);
  });

  it('refuses a bad schedule with a 400 naming each field', async () => {
    const bad = async (body: Record<string, unknown>, as: 'admin' | 'alice' = 'admin') => {
      const answer = await mesh.http('POST', 'schedules/create', as, {
        ...base,
        path: `u/${as}/bad`,
        args: { x: 1 },
        ...body,
      });
      expect([answer.status, answer.json<{ code: string }>().code]).toEqual([400, 'VALIDATION_FAILED']);
      return issues(answer);
    };
    expect(await bad({ schedule: '61 * * * * *' })).toEqual(['schedule']);
    expect(await bad({ schedule: '* * *' })).toEqual(['schedule']);
    expect(await bad({ timezone: 'Mars/Olympus' })).toEqual(['timezone']);
    expect(await bad({ script_path: 'u/admin/nothing' })).toEqual(['script_path']);
    expect(await bad({ script_path: 'u/admin/tick', is_flow: false })).toEqual(['script_path']);
    // alice may not read admin's flow: refused as one that does not exist.
    expect(await bad({}, 'alice')).toEqual(['script_path']);
    expect(await bad({ args: { x: 'one' } })).toEqual(['args.x']);
    expect(await bad({ args: {} })).toEqual(['args.x']);
    expect(await bad({ on_failure: 'script/u/admin/nothing', on_success: 'nonsense' })).toEqual([
      'on_success',
    ]);
    expect(await bad({ on_failure: 'script/u/admin/nothing' })).toEqual(['on_failure']);
    expect(await bad({ on_recovery: 'script/u/admin/on_recovery' })).toEqual(['on_recovery']);
    expect((await bad({ paused_until: 'tomorrow', tag: 'Bad Tag' })).sort()).toEqual(['paused_until', 'tag']);
    await expect(
      schedules.create({
        ...admin(),
        ...base,
        path: 'u/admin/bad',
        args: { x: 1 },
        timezone: 'Nowhere/Land',
      }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED' } satisfies Partial<MeshError>);
    expect((await mesh.http('GET', 'schedules/exists/u/admin/bad', 'admin')).json()).toBe(false);
  });

  it('previews the next fire times in the timezone', async () => {
    const answer = await mesh.http('POST', 'schedules/preview', 'admin', {
      schedule: '0 0 12 * * *',
      timezone: 'Europe/Paris',
    });
    expect(answer.status).toBe(200);
    const next = answer.json<string[]>().map((time) => new Date(time));
    expect(next).toHaveLength(5);
    for (const [i, time] of next.entries()) {
      expect(
        new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Paris', timeStyle: 'medium' }).format(time),
      ).toBe('12:00:00');
      if (i > 0) expect(time.getTime() - next[i - 1].getTime()).toBeGreaterThanOrEqual(23 * 3_600_000);
    }
    expect(next[0].getTime()).toBeGreaterThan(Date.now());
    const bad = await mesh.http('POST', 'schedules/preview', 'admin', { schedule: 'nope', timezone: 'UTC' });
    expect([bad.status, issues(bad)]).toEqual([400, ['schedule']]);
    expect(
      (await schedules.preview({ ...admin(), schedule: '*/15 * * * * *', timezone: 'UTC', count: 3 })).next,
    ).toHaveLength(3);
  });

  it('fires a schedule every second exactly once per tick across two replicas, as its owner', async () => {
    await schedules.create({
      ...admin(),
      ...base,
      path: 'u/admin/every_second',
      schedule: '* * * * * *',
      args: { x: 7 },
    });
    await waitFor(async () => ended(await runsOf('u/admin/tick', 'u/admin/every_second')).length >= 6, {
      timeoutMs: 90_000,
      description: 'six runs of the every-second schedule',
    });
    const disabledAt = Date.now();
    await disable('u/admin/every_second');
    const runs = await allEnded('u/admin/tick', 'u/admin/every_second');
    const cleared = (await jobs.list({ ...admin(), path: 'u/admin/tick', status: ['cancelled'], limit: 100 }))
      .jobs;
    expect(cleared.length).toBeLessThanOrEqual(1);
    for (const job of cleared) expect(Date.parse(job.scheduled_for!)).toBeGreaterThan(disabledAt);
    const ticks = runs.map((job) => Date.parse(job.scheduled_for!)).sort((a, b) => a - b);
    // One run per tick, and no tick between the first and the last without its run.
    expect(new Set(ticks).size).toBe(ticks.length);
    expect(ticks.every((tick) => tick % 1_000 === 0)).toBe(true);
    expect((ticks.at(-1)! - ticks[0]) / 1_000 + 1).toBe(ticks.length);
    for (const job of runs) {
      expect(job).toMatchObject({
        status: 'completed',
        success: true,
        created_by: 'admin',
        on_behalf_of: 'u/admin',
      });
      expect(Date.parse(job.started_at!)).toBeGreaterThanOrEqual(Date.parse(job.scheduled_for!));
    }
    const one = await jobs.get({ ...admin(), id: runs[0].id });
    expect([one.args, one.result]).toEqual([{ x: 7 }, 7]);
    const windmill = await mesh.http('GET', `jobs_u/get/${runs[0].id}`, 'admin');
    expect(windmill.json()).toMatchObject({
      schedule_path: 'u/admin/every_second',
      trigger_kind: 'schedule',
    });
    // Disabled: no run after the ones already started, even one whose tick a replica had claimed
    // (up to 1 s ahead) as the disable landed: that one is withdrawn once started.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const after = await runsOf('u/admin/tick', 'u/admin/every_second');
    expect(after.filter((job) => !runs.some((run) => run.id === job.id))).toEqual([]);
  });

  it('runs the failure, recovery and success handlers with Windmill’s arguments, in tick order', async () => {
    writeFileSync(join(dir, 'mode'), 'fail');
    // A failing run takes 2.5 s, a successful one none: runs overlap, and the last failures end
    // after the first successes. The handlers still see the runs in tick order.
    await schedules.create({
      ...admin(),
      ...base,
      path: 'u/admin/handled',
      schedule: '* * * * * *',
      script_path: 'u/admin/flaky',
      on_failure: 'script/u/admin/on_failure',
      on_failure_times: 2,
      on_failure_extra_args: { channel: '#ops' },
      on_recovery: 'flow/u/admin/on_recovery',
      on_recovery_extra_args: { note: 'back' },
      on_success: 'script/u/admin/on_success',
      on_success_extra_args: { say: 'yay' },
    });
    const handlerRuns = async (path: string) => (await jobs.list({ ...admin(), path, limit: 1_000 })).jobs;
    await waitFor(async () => (await handlerRuns('u/admin/on_failure')).length >= 2, {
      timeoutMs: 90_000,
      description: 'the failure handler to run twice',
    });
    writeFileSync(join(dir, 'mode'), 'ok');
    await waitFor(async () => (await handlerRuns('u/admin/on_success')).length >= 2, {
      timeoutMs: 90_000,
      description: 'two successes after the failures',
    });
    await disable('u/admin/handled');
    const runs = (await allEnded('u/admin/flaky', 'u/admin/handled')).sort(
      (a, b) => Date.parse(a.scheduled_for!) - Date.parse(b.scheduled_for!),
    );
    // What Windmill's rules give over the runs in tick order: on_failure for each failure after a
    // failure (times 2), on_recovery for each success after a failure, on_success per success.
    const failuresDue = runs.filter((run, i) => !run.success && i > 0 && !runs[i - 1].success);
    const recoveriesDue = runs.flatMap((run, i) =>
      run.success && i > 0 && !runs[i - 1].success ? [{ failed: runs[i - 1], recovered: run }] : [],
    );
    const successes = runs.filter((run) => run.success);
    expect(failuresDue.length).toBeGreaterThanOrEqual(1);
    expect(recoveriesDue.length).toBeGreaterThanOrEqual(1);
    const counts = async () =>
      Promise.all(
        ['u/admin/on_failure', 'u/admin/on_recovery', 'u/admin/on_success'].map(
          async (path) => (await handlerRuns(path)).length,
        ),
      );
    const due = [failuresDue.length, recoveriesDue.length, successes.length];
    await waitFor(async () => JSON.stringify(await counts()) === JSON.stringify(due), {
      timeoutMs: 90_000,
      description: `handler runs (failure, recovery, success) to be ${due.join(', ')}`,
    });
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await counts()).toEqual(due);

    const argsOf = async (path: string) =>
      Promise.all(
        (await handlerRuns(path)).map(async (job) => (await jobs.get({ ...admin(), id: job.id })).args),
      );
    const failures = await argsOf('u/admin/on_failure');
    for (const args of failures) {
      expect(args).toMatchObject({
        error: { name: 'Error', message: 'boom' },
        schedule_path: 'u/admin/handled',
        workspace_id: 'main',
        path: 'u/admin/flaky',
        is_flow: true,
        failed_times: 2,
        email: 'admin@example.test',
        channel: '#ops',
      });
      expect(typeof args.started_at).toBe('string');
    }
    expect(failures.map((args) => args.job_id).sort()).toEqual(failuresDue.map((run) => run.id).sort());
    const recoveries = await argsOf('u/admin/on_recovery');
    for (const recovery of recoveries)
      expect(recovery).toMatchObject({
        error: { name: 'Error', message: 'boom' },
        schedule_path: 'u/admin/handled',
        path: 'u/admin/flaky',
        is_flow: true,
        success_result: 'fine',
        success_times: 1,
        note: 'back',
      });
    // Each recovery names the failure just before it in tick order, whichever ended first.
    const pairs = (list: Array<{ error: unknown; ok: unknown }>) =>
      list.map((pair) => JSON.stringify(pair)).sort();
    expect(
      pairs(recoveries.map((args) => ({ error: args.error_started_at, ok: args.success_started_at }))),
    ).toEqual(
      pairs(recoveriesDue.map((due) => ({ error: due.failed.started_at, ok: due.recovered.started_at }))),
    );
    const [success] = await argsOf('u/admin/on_success');
    expect(success).toMatchObject({
      schedule_path: 'u/admin/handled',
      path: 'u/admin/flaky',
      is_flow: true,
      success_result: 'fine',
      say: 'yay',
    });
    expect(typeof success.success_started_at).toBe('string');
  });

  it('skips a tick while the previous run still runs (no_flow_overlap)', async () => {
    const started = Date.now();
    await schedules.create({
      ...admin(),
      ...base,
      path: 'u/admin/no_overlap',
      schedule: '* * * * * *',
      script_path: 'u/admin/slow',
      no_flow_overlap: true,
    });
    await waitFor(async () => ended(await runsOf('u/admin/slow', 'u/admin/no_overlap')).length >= 2, {
      timeoutMs: 90_000,
      description: 'two runs of the slow schedule',
    });
    await disable('u/admin/no_overlap');
    const runs = (await allEnded('u/admin/slow', 'u/admin/no_overlap')).sort(
      (a, b) => Date.parse(a.started_at!) - Date.parse(b.started_at!),
    );
    for (let i = 1; i < runs.length; i++)
      expect(Date.parse(runs[i].started_at!)).toBeGreaterThanOrEqual(Date.parse(runs[i - 1].completed_at!));
    // Each run takes 2.5 s: most of the ticks in that time were skipped.
    expect(runs.length).toBeLessThan((Date.now() - started) / 1_000 / 2);
  });

  it('runs nothing before paused_until, then goes on and clears it', async () => {
    const pausedUntil = new Date(Math.ceil((Date.now() + 3_000) / 1_000) * 1_000 + 500);
    await schedules.create({
      ...admin(),
      ...base,
      path: 'u/admin/paused',
      schedule: '* * * * * *',
      args: { x: 3 },
      paused_until: pausedUntil.toISOString(),
    });
    await waitFor(async () => ended(await runsOf('u/admin/tick', 'u/admin/paused')).length >= 2, {
      timeoutMs: 90_000,
      description: 'runs after the pause',
    });
    await disable('u/admin/paused');
    const runs = await allEnded('u/admin/tick', 'u/admin/paused');
    const first = Math.min(...runs.map((job) => Date.parse(job.scheduled_for!)));
    expect(first).toBe(pausedUntil.getTime() + 500);
    expect((await schedules.get({ ...admin(), path: 'u/admin/paused' })).paused_until).toBeNull();
  });

  it('records on the schedule why a tick could not start its run, and goes on ticking', async () => {
    const inMain = admin();
    await mesh.items.createFlow({
      ...inMain,
      path: 'u/admin/doomed',
      summary: 'doomed',
      value: { modules: [{ id: 'a', value: { type: 'identity' } }] },
    });
    await schedules.create({
      ...inMain,
      ...base,
      path: 'u/admin/orphan',
      schedule: '* * * * * *',
      script_path: 'u/admin/doomed',
    });
    await waitFor(async () => ended(await runsOf('u/admin/doomed', 'u/admin/orphan')).length >= 1, {
      timeoutMs: 90_000,
      description: 'a run of the doomed flow',
    });
    await mesh.items.deleteFlow({ ...inMain, path: 'u/admin/doomed' });
    const failing = await waitFor(
      async () => {
        const schedule = await schedules.get({ ...inMain, path: 'u/admin/orphan' });
        return schedule.error ? schedule : undefined;
      },
      { timeoutMs: 90_000, description: 'the schedule to record its error' },
    );
    expect(failing.error).toMatch(/u\/admin\/doomed/);
    expect(failing.enabled).toBe(true);
    // Fixed (the flow is back): the next tick runs and clears the error, as Windmill does.
    await mesh.items.createFlow({
      ...inMain,
      path: 'u/admin/doomed',
      summary: 'back',
      value: { modules: [{ id: 'a', value: { type: 'identity' } }] },
    });
    await waitFor(async () => (await schedules.get({ ...inMain, path: 'u/admin/orphan' })).error === null, {
      timeoutMs: 90_000,
      description: 'the error to clear once a run starts',
    });
    await disable('u/admin/orphan');
  });

  it('retries a scheduled script as Windmill does (a one-step flow with the retry)', async () => {
    const inMain = admin();
    await mesh.items.createScript({
      ...inMain,
      path: 'u/admin/second_time',
      summary: 'fails its first attempt ever',
      language: 'bun',
      content: `import { appendFileSync, readFileSync } from 'node:fs';
export async function main(word: string) {
  const file = ${JSON.stringify(join(dir, 'attempts'))};
  appendFileSync(file, 'x');
  if (readFileSync(file, 'utf8').length === 1) throw new Error('first attempt');
  return word;
}`,
    });
    const bad = await mesh.http('POST', 'schedules/create', 'admin', {
      ...base,
      path: 'u/admin/retried',
      script_path: 'u/admin/second_time',
      is_flow: false,
      retry: { constant: { attempts: 'two' } },
    });
    expect([bad.status, issues(bad)]).toEqual([400, ['retry.constant.attempts']]);
    await schedules.create({
      ...inMain,
      ...base,
      path: 'u/admin/retried',
      schedule: '* * * * * *',
      script_path: 'u/admin/second_time',
      is_flow: false,
      args: { word: 'again' },
      retry: { constant: { attempts: 2, seconds: 1 } },
    });
    await waitFor(async () => ended(await runsOf('u/admin/second_time', 'u/admin/retried')).length >= 1, {
      timeoutMs: 90_000,
      description: 'a retried run to end',
    });
    await disable('u/admin/retried');
    const runs = await allEnded('u/admin/second_time', 'u/admin/retried');
    // The first attempt ever failed, yet every run succeeded: that run was tried again.
    expect(runs.map((job) => [job.status, job.kind])).toEqual(runs.map(() => ['completed', 'flowpreview']));
    expect(readFileSync(join(dir, 'attempts'), 'utf8').length).toBe(runs.length + 1);
    const job = await jobs.get({ ...inMain, id: runs[0].id });
    expect([job.result, job.args, job.path]).toEqual(['again', { word: 'again' }, 'u/admin/second_time']);
  });

  it('starts the tick a replica recorded but died before starting: late, once', async () => {
    const inMain = admin();
    // Due on New Year's midnight only: the ticker itself fires nothing during the test.
    await schedules.create({
      ...inMain,
      ...base,
      path: 'u/admin/orphaned',
      schedule: '0 0 0 1 1 *',
      args: { x: 9 },
    });
    const tick = new Date(Math.ceil(Date.now() / 1_000) * 1_000 + 1_000);
    const jobId = randomUUID();
    // What a replica leaves when it dies between its claim's commit and the run's start.
    const client = new pg.Client({ connectionString: mesh.orchestrator.config.database.url });
    await client.connect();
    try {
      await client.query('SET search_path TO orchestrator');
      await client.query(
        `INSERT INTO schedule_run (workspace_id, schedule_path, scheduled_for, job_id, script_path, is_flow, attempt_at)
         VALUES ('main', 'u/admin/orphaned', $1, $2, 'u/admin/tick', true, now() - interval '10 seconds')`,
        [tick, jobId],
      );
    } finally {
      await client.end();
    }
    const job = await waitFor(
      async () => {
        const found = await jobs.get({ ...inMain, id: jobId });
        return isTerminalJobStatus(found.status) ? found : undefined;
      },
      { timeoutMs: 90_000, description: 'the orphaned tick to run' },
    );
    expect(job).toMatchObject({
      status: 'completed',
      result: 9,
      trigger_kind: 'schedule',
      trigger: 'u/admin/orphaned',
    });
    expect(Date.parse(job.scheduled_for!)).toBe(tick.getTime());
    expect((await runsOf('u/admin/tick', 'u/admin/orphaned')).map((run) => run.id)).toEqual([jobId]);
    await schedules.delete({ ...inMain, path: 'u/admin/orphaned' });
  });
});
