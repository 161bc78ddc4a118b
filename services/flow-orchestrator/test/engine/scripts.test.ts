import { scriptScratchDir } from '@flowmesh/testing';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngineMesh, type EngineMesh } from '../support/engine-mesh.js';

/** An inline TypeScript step: `main(<params>) { <body> }`, its params fed from expressions. */
function ts(id: string, params: Record<string, string>, body: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    value: {
      type: 'rawscript',
      language: 'bun',
      content: `import { appendFileSync, readFileSync, existsSync, writeFileSync, mkdirSync } from 'node:fs';\nexport async function main(${Object.keys(params).join(', ')}) { ${body} }`,
      input_transforms: Object.fromEntries(
        Object.entries(params).map(([name, expr]) => [name, { type: 'javascript', expr }]),
      ),
    },
    ...extra,
  };
}

describe('script steps', () => {
  let mesh: EngineMesh;
  let dir: string;
  const lines = (name: string) => readFileSync(join(dir, name), 'utf8').trim().split('\n');
  beforeAll(async () => {
    dir = scriptScratchDir('fm-engine-scripts-');
    // This worker serves `default` and `flow`; a second one serves only `other`.
    mesh = await startEngineMesh();
    await mesh.addWorker({ FLOWMESH_WORKER_TAGS: 'other' });
    await mesh.items.createVariable({
      actor: mesh.admin,
      workspace: 'main',
      path: 'u/admin/word',
      value: 'secret-word',
      is_secret: true,
    });
  }, 180_000);
  afterAll(async () => {
    await mesh?.stop();
  });

  it('passes arguments by name, returns the result, and chains results', async () => {
    const job = await mesh.runFlow(
      {
        modules: [
          ts('a', { x: 'flow_input.x' }, 'return x * 2;'),
          ts('b', { y: 'results.a', z: 'previous_result' }, 'return { y, z };'),
        ],
      },
      { x: 21 },
    );
    expect(job.result).toEqual({ y: 42, z: 42 });
  });

  it('a thrown error fails the flow with its name, message and the step id', async () => {
    const job = await mesh.runFlow({ modules: [ts('boom', {}, "throw new TypeError('bad input');")] });
    expect(job.status).toBe('failed');
    expect(job.result).toMatchObject({ error: { name: 'TypeError', message: 'bad input', step_id: 'boom' } });
  });

  it('the failure module gets the error (message, name, step_id); the flow fails with its result', async () => {
    const job = await mesh.runFlow({
      modules: [ts('boom', {}, "throw new Error('kaput');")],
      failure_module: ts(
        'failure',
        { message: 'error.message', name: 'error.name', step: 'error.step_id' },
        'return { handled: [message, name, step] };',
      ),
    });
    expect(job.status).toBe('failed');
    expect(job.result).toEqual({ handled: ['kaput', 'Error', 'boom'] });
    expect(job.flow_status!.failure_module).toMatchObject({ type: 'Success', parent_module: 'boom' });
  });

  it('retries a failing step with the same arguments until it succeeds', async () => {
    const file = join(dir, 'retry');
    const job = await mesh.runFlow({
      modules: [
        ts(
          'flaky',
          { n: '7' },
          `appendFileSync('${file}', 'x\\n'); if (readFileSync('${file}', 'utf8').length < 6) throw new Error('not yet'); return n;`,
          {
            retry: { constant: { attempts: 3, seconds: 0 } },
          },
        ),
      ],
    });
    expect(job.result).toBe(7);
    expect(lines('retry')).toHaveLength(3);
    expect(job.flow_status!.modules[0].failed_retries).toHaveLength(2);
  });

  it('cache_ttl answers a step from the cache for the same arguments', async () => {
    const file = join(dir, 'cache');
    const flow = (n: number) => ({
      modules: [
        ts('cached', { n: `${n}` }, `appendFileSync('${file}', 'run\\n'); return n * 10;`, { cache_ttl: 60 }),
      ],
    });
    expect((await mesh.runFlow(flow(1))).result).toBe(10);
    expect((await mesh.runFlow(flow(1))).result).toBe(10);
    expect((await mesh.runFlow(flow(2))).result).toBe(20);
    expect(lines('cache')).toHaveLength(2);
  });

  it('resolves $var: arguments just before the step runs, and never stores the secret', async () => {
    const job = await mesh.runFlow({
      modules: [
        {
          id: 's',
          value: {
            type: 'rawscript',
            language: 'bun',
            content: 'export function main(word: string) { return word.length; }',
            input_transforms: { word: { type: 'static', value: '$var:u/admin/word' } },
          },
        },
      ],
    });
    expect(job.result).toBe('secret-word'.length);
    const step = await mesh.get(job.flow_status!.modules[0].job!);
    expect(step.args).toEqual({ word: '$var:u/admin/word' });
  });

  it('flow_env is the environment of every step', async () => {
    const job = await mesh.runFlow({
      flow_env: { REGION: 'eu-west' },
      modules: [ts('e', {}, 'return process.env.REGION;')],
    });
    expect(job.result).toBe('eu-west');
  });

  it("a step whose tag this worker does not serve runs on that tag's worker, and the flow waits without a worker", async () => {
    const job = await mesh.runFlow({
      modules: [
        ts('here', {}, 'return 1;'),
        {
          ...ts('there', { p: 'previous_result' }, 'return p + 1;'),
          value: { ...ts('x', { p: 'previous_result' }, 'return p + 1;').value, tag: 'other' },
        },
        ts('back', { p: 'previous_result' }, 'return p + 1;'),
      ],
    });
    expect(job.result).toBe(3);
    expect((await mesh.get(job.flow_status!.modules[1].job!)).tag).toBe('other');
  });

  it('a loop body woken alone (its step ran on another tag) still reads the results of the steps around its loop', async () => {
    const other = ts('elsewhere', {}, 'return 1;');
    const job = await mesh.runFlow({
      modules: [
        {
          id: 'outer',
          value: {
            type: 'forloopflow',
            skip_failures: false,
            iterator: { type: 'static', value: [7, 8] },
            modules: [],
          },
        },
        {
          id: 'l',
          value: {
            type: 'forloopflow',
            skip_failures: false,
            iterator: { type: 'static', value: [1] },
            modules: [
              { ...other, value: { ...other.value, tag: 'other' } },
              ts('reads', { outer: 'results.outer' }, 'return outer.map((o) => o.iter.value);'),
            ],
          },
        },
      ],
    });
    expect(job.result).toEqual([[7, 8]]);
  });

  it('timeout ends a step that runs too long', async () => {
    const job = await mesh.runFlow({
      modules: [
        ts('slow', {}, 'await new Promise((r) => setTimeout(r, 5000)); return 1;', {
          timeout: { type: 'static', value: 1 },
        }),
      ],
    });
    expect(job.status).toBe('failed');
    expect(job.result).toMatchObject({ error: { step_id: 'slow' } });
  });

  it('step debouncing: a burst of runs reaching one step key runs it once, with the last run', async () => {
    const file = join(dir, 'debounced');
    const flow = {
      modules: [
        // The runs must reach the step within the window of each other: 5 s, not 1, since on a
        // loaded machine one run's start to its first step took more than a second.
        ts('notify', { n: 'flow_input.n' }, `appendFileSync('${file}', n + '\\n'); return n;`, {
          debouncing: { debounce_delay_s: 5, debounce_key: 'engine-notify' },
        }),
      ],
    };
    const ids: string[] = [];
    for (const n of [1, 2, 3]) ids.push(await mesh.startFlow(flow, { n }));
    const jobs = await Promise.all(ids.map((id) => mesh.waitEnded(id)));
    expect(jobs.map((job) => job.status)).toEqual(['completed', 'completed', 'completed']);
    expect(lines('debounced')).toEqual(['3']);
    expect(jobs.map((job) => job.flow_status!.modules[0].skipped ?? false)).toEqual([true, true, false]);
  });

  it("keeps the run's job token sealed at rest: the step acts with it, no row holds a trace of it", async () => {
    const job = await mesh.runFlow({ modules: [ts('t', {}, 'return process.env.WM_TOKEN;')] });
    const token = job.result as string;
    expect(token.length).toBeGreaterThan(20);
    const rows = await mesh.orchestrator.running.app
      .get(DataSource)
      .query<Array<{ token: string }>>('SELECT token FROM job_token');
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.token).toMatch(/^sealed:v1:insecure-dev:/);
      expect(row.token).not.toContain(token);
    }
  });

  it('same_worker steps share the ./shared folder', async () => {
    const job = await mesh.runFlow({
      same_worker: true,
      modules: [
        ts(
          'w',
          {},
          "mkdirSync('./shared', { recursive: true }); writeFileSync('./shared/f', 'kept'); return 1;",
        ),
        ts('r', {}, "return readFileSync('./shared/f', 'utf8');"),
      ],
    });
    expect(job.result).toBe('kept');
  });

  it('a parallel loop of 100 script steps finishes with every result in order', async () => {
    const id = await mesh.startFlow({
      modules: [
        {
          id: 'l',
          value: {
            type: 'forloopflow',
            skip_failures: false,
            parallel: true,
            parallelism: { type: 'static', value: 20 },
            iterator: { type: 'javascript', expr: 'Array.from({ length: 100 }, (_, i) => i)' },
            modules: [ts('sq', { i: 'flow_input.iter.value' }, 'return i * i;')],
          },
        },
      ],
    });
    const job = await mesh.waitEnded(id, 60_000);
    expect(job.result).toEqual(Array.from({ length: 100 }, (_, i) => i * i));
    expect(job.flow_status!.modules[0].flow_jobs_success).toEqual(Array.from({ length: 100 }, () => true));
  }, 180_000);
});
