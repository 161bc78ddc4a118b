import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MeshError, type Job } from '@flowmesh/contracts';
import { waitFor, scriptScratchDir } from '@flowmesh/testing';
import { fillTemplates, runsOf, type ActorName, type FlowCase, type RegistryFixtures } from './flow-case.js';
import { WORKSPACE, type FlowMesh } from './flow-mesh.js';
import { isPlainObject, mismatches } from './value-match.js';

/** What one case did: every problem found, and enough of the run to explain them. */
export interface CaseOutcome {
  readonly problems: string[];
  readonly jobs: Job[];
}

// A bound a user would call broken: a 1 000-iteration loop takes ~15 s idle, over 75 s with
// every core busy.
const RUN_TIMEOUT_MS = 180_000;

/** The Postgres the `postgresql` cases query, as a `postgresql` resource value. */
export function pgResourceValue(databaseUrl = process.env.DATABASE_URL ?? ''): Record<string, unknown> {
  const url = new URL(databaseUrl);
  return {
    host: url.hostname,
    port: Number(url.port || 5432),
    user: decodeURIComponent(url.username || 'postgres'),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    dbname: url.pathname.replace(/^\//, '') || 'postgres',
    sslmode: 'disable',
  };
}

/** Runs one conformance case against the mesh and checks every expectation it states. */
export async function runCase(fm: FlowMesh, flowCase: FlowCase): Promise<CaseOutcome> {
  const dir = scriptScratchDir(`fm-conf-${flowCase.name.slice(0, 3)}-`);
  const vars: Record<string, unknown> = {
    dir,
    registry_url: fm.registryUrl,
    pg_resource: pgResourceValue(),
  };
  const hashes = await createFixtures(fm, flowCase.registry, vars);
  Object.assign(vars, hashes);
  const flow =
    flowCase.flow === undefined ? undefined : (fillTemplates(flowCase.flow, vars) as Record<string, unknown>);
  const expect = fillTemplates(flowCase.expect, vars) as FlowCase['expect'];
  const problems: string[] = [];
  const runAs: ActorName = flowCase.run_as ?? 'admin';
  const actor = { token: fm.actors[runAs].token };

  if (flowCase.early_return_via_http) return runEarlyReturn(fm, flowCase, expect);

  const submit = (args: Record<string, unknown>) =>
    fm.jobs.runFlow({
      actor,
      workspace: WORKSPACE,
      ...(flow ? { value: flow } : { path: flowCase.flow_path }),
      args: fillTemplates(args, vars) as Record<string, unknown>,
      ...(flowCase.run_tag ? { tag: flowCase.run_tag } : {}),
      ...(flowCase.apply_preprocessor ? { apply_preprocessor: true } : {}),
    });

  const { mode, args } = runsOf(flowCase);
  const started = Date.now();
  const jobs: Job[] = [];
  if (mode === 'sequential') {
    for (const runArgs of args) {
      const { job_id } = await submit(runArgs);
      if (flowCase.approvals) problems.push(...(await approve(fm, job_id, flowCase)));
      // A flow that never ends after its approvals: say what the approvals met (a refusal, a
      // flow that never suspended), or the timeout alone would hide it.
      const ended = await fm.waitForEnd(job_id, RUN_TIMEOUT_MS, runAs).catch((error: unknown) => {
        if (problems.length === 0) throw error;
        throw new Error(`${(error as Error).message}; before that: ${problems.join('; ')}`);
      });
      jobs.push(ended);
    }
  } else {
    const ids: string[] = [];
    if (mode === 'parallel') ids.push(...(await Promise.all(args.map(submit))).map((reply) => reply.job_id));
    else for (const runArgs of args) ids.push((await submit(runArgs)).job_id);
    jobs.push(...(await Promise.all(ids.map((id) => fm.waitForEnd(id, RUN_TIMEOUT_MS, runAs)))));
  }
  const wallMs = Date.now() - started;
  const job = jobs[jobs.length - 1];

  const check = (label: string, actual: unknown, expected: unknown, partialObjects = false) =>
    problems.push(
      ...mismatches(actual, expected, { partialObjects }).map((problem) => `${label} ${problem}`),
    );

  if ('result' in expect) {
    if (job.status !== 'completed')
      problems.push(`expected success, the job ${job.status}: ${JSON.stringify(job.result)}`);
    check('result', job.result, expect.result);
  }
  if (expect.error) {
    if (job.status !== 'failed')
      problems.push(`expected a failure, the job ${job.status}: ${JSON.stringify(job.result)}`);
    const error = isPlainObject(job.result) ? job.result.error : undefined;
    check('error', error, { $partial: expect.error });
  }
  if ('failed_result' in expect) {
    if (job.status !== 'failed')
      problems.push(`expected a failure, the job ${job.status}: ${JSON.stringify(job.result)}`);
    check('result', job.result, expect.failed_result);
  }
  if (expect.results) {
    check(
      'statuses',
      jobs.map((j) => j.status),
      expect.results.map(() => 'completed'),
    );
    check(
      'results',
      jobs.map((j) => j.result),
      expect.results,
    );
  }
  if (expect.skipped !== undefined) check('skipped', job.skipped, expect.skipped);
  if (expect.flow_status !== undefined) check('flow_status', job.flow_status, expect.flow_status, true);
  if (expect.job) check('job', job, { $partial: expect.job });
  if (expect.min_duration_ms !== undefined) {
    const engineMs = job.completed_at ? Date.parse(job.completed_at) - Date.parse(job.created_at) : 0;
    if (engineMs < expect.min_duration_ms)
      problems.push(
        `the run took ${engineMs} ms (created_at to completed_at), expected at least ${expect.min_duration_ms}`,
      );
  }
  if (expect.max_duration_ms !== undefined && wallMs > expect.max_duration_ms)
    problems.push(`the run took ${wallMs} ms, expected at most ${expect.max_duration_ms}`);
  if (expect.max_step_duration_ms !== undefined) {
    for (const child of await stepJobs(fm, job.id, runAs)) {
      if (child.id === job.id || !child.started_at || !child.completed_at) continue;
      const took = Date.parse(child.completed_at) - Date.parse(child.started_at);
      if (took > expect.max_step_duration_ms)
        problems.push(
          `job ${child.flow_step_id ?? child.id} ran ${took} ms, expected at most ${expect.max_step_duration_ms}`,
        );
    }
  }
  if (expect.raw_flow_keeps) {
    const value = isPlainObject(flow?.value) ? flow.value : {};
    const raw = job.raw_flow ?? {};
    const stored = isPlainObject(raw.value) ? raw.value : raw;
    for (const key of expect.raw_flow_keeps) check(`raw_flow.${key}`, stored[key], value[key]);
  }

  const lines = (file: string) =>
    existsSync(join(dir, file))
      ? readFileSync(join(dir, file), 'utf8')
          .split('\n')
          .filter((l) => l !== '')
      : [];
  for (const [file, count] of Object.entries(expect.side_effects ?? {}))
    check(`side effects in ${file}:`, lines(file).length, count);
  for (const [file, expected] of Object.entries(expect.file_lines ?? {}))
    check(`lines of ${file}:`, lines(file), expected);
  for (const [file, expected] of Object.entries(expect.file_lines_any_order ?? {}))
    check(`lines of ${file} (any order):`, lines(file).sort(), [...expected].sort());
  for (const [file, bound] of Object.entries(expect.max_concurrency ?? {})) {
    const peak = peakConcurrency(lines(file));
    if (bound.equals !== undefined && peak !== bound.equals)
      problems.push(`${file}: at most ${peak} ran at once, expected exactly ${bound.equals}`);
    if (bound.min !== undefined && peak < bound.min)
      problems.push(`${file}: at most ${peak} ran at once, expected at least ${bound.min} (not concurrent)`);
  }
  for (const [file, gaps] of Object.entries(expect.min_gaps_ms ?? {})) {
    const stamps = lines(file).map(Number);
    gaps.forEach((gap, index) => {
      const actual = (stamps[index + 1] ?? NaN) - (stamps[index] ?? NaN);
      if (!(actual >= gap))
        problems.push(
          `${file}: attempt ${index + 2} came ${actual} ms after attempt ${index + 1}, expected >= ${gap}`,
        );
    });
  }
  if (expect.step_jobs) {
    const children = await stepJobs(fm, job.id, runAs);
    for (const [stepId, fields] of Object.entries(expect.step_jobs)) {
      const found = children.filter((child) => child.flow_step_id === stepId);
      if (found.length === 0) problems.push(`no job ran step ${stepId}`);
      for (const child of found) check(`step job ${stepId}`, child, { $partial: fields });
    }
  }
  if (expect.step_deleted) {
    const children = await stepJobs(fm, job.id, runAs);
    for (const stepId of expect.step_deleted) {
      const child = children.find((c) => c.flow_step_id === stepId);
      if (!child) problems.push(`no job ran step ${stepId}`);
      else problems.push(...(await deletedEventually(fm, child.id, runAs, `step ${stepId}`)));
    }
  }
  if (expect.flow_deleted) problems.push(...(await deletedEventually(fm, job.id, runAs, 'the flow job')));
  return { problems, jobs };
}

async function createFixtures(
  fm: FlowMesh,
  fixtures: RegistryFixtures | undefined,
  vars: Record<string, unknown>,
): Promise<Record<string, string>> {
  const hashes: Record<string, string> = {};
  if (!fixtures) return hashes;
  const as = (name: ActorName = 'admin') => ({
    actor: { token: fm.actors[name].token },
    workspace: WORKSPACE,
  });
  for (const type of fixtures.resource_types ?? [])
    await fm.items.createResourceType({ ...as(), name: type.name, schema: type.schema });
  for (const variable of fixtures.variables ?? [])
    await fm.items.createVariable({
      ...as(variable.as),
      path: variable.path,
      value: variable.value,
      is_secret: variable.is_secret ?? false,
    });
  for (const resource of fixtures.resources ?? [])
    await fm.items.createResource({
      ...as(resource.as),
      path: resource.path,
      resource_type: resource.resource_type,
      value: fillTemplates(resource.value, vars),
    });
  for (const script of fixtures.scripts ?? []) {
    const versions = script.versions ?? [script.content ?? ''];
    for (const [index, content] of versions.entries()) {
      const body = {
        ...as(),
        path: script.path,
        language: script.language as never,
        content: fillTemplates(content, vars) as string,
      };
      const saved = index === 0 ? await fm.items.createScript(body) : await fm.items.updateScript(body);
      hashes[`hash:${script.path}:${index}`] = saved.hash;
      hashes[`hash:${script.path}`] = saved.hash;
    }
  }
  for (const flow of fixtures.flows ?? [])
    await fm.items.createFlow({
      ...as(),
      path: flow.path,
      summary: flow.summary ?? flow.path,
      value: fillTemplates(flow.value, { ...vars, ...hashes }) as Record<string, unknown>,
    });
  return hashes;
}

/** Waits for the flow to park on its approval step, then plays the case's approval script. */
async function approve(fm: FlowMesh, jobId: string, flowCase: FlowCase): Promise<string[]> {
  const problems: string[] = [];
  const suspended = async () => {
    const job = await fm.getJob(jobId);
    if (job.status === 'suspended') return true;
    if (job.status === 'completed' || job.status === 'failed' || job.status === 'cancelled')
      throw new Error(`the flow ended (${job.status}: ${JSON.stringify(job.result)}) instead of suspending`);
    return false;
  };
  try {
    // The run's own budget: on a loaded machine the steps before the approval can take a while.
    await waitFor(suspended, {
      timeoutMs: RUN_TIMEOUT_MS,
      intervalMs: 100,
      description: 'the flow to suspend',
    });
  } catch (error) {
    const job = await fm.getJob(jobId).catch(() => undefined);
    return [
      `never suspended: ${(error as Error).message}; the job is ${job?.status}, flow_status ${JSON.stringify(job?.flow_status?.modules)}`,
    ];
  }
  for (const step of flowCase.approvals ?? []) {
    if (step.expect_status !== undefined) {
      const job = await fm.getJob(jobId);
      if (job.status !== step.expect_status)
        problems.push(`after the approvals so far the flow is ${job.status}, expected ${step.expect_status}`);
      if (step.expect_flow_status !== undefined)
        problems.push(
          ...mismatches(job.flow_status, step.expect_flow_status, { partialObjects: true }).map(
            (p) => `suspended flow_status ${p}`,
          ),
        );
      continue;
    }
    const request = {
      actor: { token: fm.actors[step.as ?? 'admin'].token },
      workspace: WORKSPACE,
      id: jobId,
      resume_id: step.resume_id ?? 1,
      ...(step.approver !== undefined ? { approver: step.approver } : {}),
      ...(step.payload !== undefined ? { payload: step.payload } : {}),
      approve: step.approve ?? true,
      authenticated: step.authenticated ?? true,
    };
    const outcome = await fm.jobs.resume(request).then(
      (reply) => ({ ok: true as const, reply }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    if (step.expect_error !== undefined) {
      if (outcome.ok)
        problems.push(
          `resume ${JSON.stringify(request.payload ?? null)} by ${step.approver} was accepted (${outcome.reply.outcome}), expected a refusal`,
        );
      else {
        const message = outcome.error instanceof MeshError ? outcome.error.message : String(outcome.error);
        problems.push(...mismatches(message, step.expect_error).map((p) => `refusal message ${p}`));
      }
    } else if (!outcome.ok) {
      problems.push(`resume by ${step.approver} was refused: ${String((outcome.error as Error).message)}`);
    } else if (step.expect_outcome !== undefined && outcome.reply.outcome !== step.expect_outcome) {
      problems.push(
        `resume by ${step.approver} answered ${outcome.reply.outcome}, expected ${step.expect_outcome}`,
      );
    }
  }
  return problems;
}

/** Calls a saved flow's run_wait_result over HTTP (which honours early_return), then waits for the run to end. */
async function runEarlyReturn(
  fm: FlowMesh,
  flowCase: FlowCase,
  expect: FlowCase['expect'],
): Promise<CaseOutcome> {
  const problems: string[] = [];
  const started = Date.now();
  const response = await fetch(
    `${fm.orchestratorUrl}/api/w/${WORKSPACE}/jobs/run_wait_result/f/${flowCase.flow_path}`,
    {
      method: 'POST',
      headers: { authorization: `Bearer ${fm.actors.admin.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(flowCase.args),
    },
  );
  const elapsed = Date.now() - started;
  const text = await response.text();
  if (response.status !== 200)
    return { problems: [`run_wait_result answered ${response.status}: ${text}`], jobs: [] };
  problems.push(
    ...mismatches(JSON.parse(text) as unknown, expect.early_result).map((p) => `early result ${p}`),
  );
  if (expect.early_within_ms !== undefined && elapsed > expect.early_within_ms)
    problems.push(`the early result came after ${elapsed} ms, expected within ${expect.early_within_ms}`);
  const { jobs } = await fm.jobs.list({
    actor: { token: fm.actors.admin.token },
    workspace: WORKSPACE,
    path: flowCase.flow_path,
  });
  const run = jobs[0];
  if (!run) return { problems: [...problems, `no job of ${flowCase.flow_path} is listed`], jobs: [] };
  const job = await fm.waitForEnd(run.id, RUN_TIMEOUT_MS);
  if (job.status !== 'completed') problems.push(`the flow ${job.status}: ${JSON.stringify(job.result)}`);
  problems.push(...mismatches(job.result, expect.result).map((p) => `final result ${p}`));
  return { problems, jobs: [job] };
}

async function stepJobs(fm: FlowMesh, rootId: string, as: ActorName) {
  const { jobs } = await fm.jobs.list({
    actor: { token: fm.actors[as].token },
    workspace: WORKSPACE,
    root_job: rootId,
    include_children: true,
    limit: 1_000,
  });
  return jobs;
}

async function deletedEventually(fm: FlowMesh, id: string, as: ActorName, label: string): Promise<string[]> {
  let last: Job | undefined;
  try {
    await waitFor(
      async () => {
        last = await fm.getJob(id, as);
        return Object.keys(last.args).length === 0 && (last.result === null || last.result === undefined);
      },
      { timeoutMs: 60_000, intervalMs: 250, description: `${label}'s args and result to be deleted` },
    );
    return [];
  } catch {
    return [
      `${label}'s args and result were not deleted: args ${JSON.stringify(last?.args)}, result ${JSON.stringify(last?.result)}`,
    ];
  }
}

/** The most `+` lines not yet closed by a `-` line, reading the trace in order. */
export function peakConcurrency(trace: readonly string[]): number {
  let running = 0;
  let peak = 0;
  for (const line of trace) {
    running += line === '+' ? 1 : line === '-' ? -1 : 0;
    peak = Math.max(peak, running);
  }
  return peak;
}
