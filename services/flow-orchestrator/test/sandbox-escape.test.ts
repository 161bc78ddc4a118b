import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Job } from '@flowmesh/contracts';
import { startFlowMesh, WORKSPACE, type FlowMesh } from './conformance/support/flow-mesh.js';
import { isPlainObject } from './conformance/support/value-match.js';

/**
 * Hostile JavaScript in a flow's expressions (the scheduler evaluates them in QuickJS): endless
 * loops, memory and stack bombs, `constructor.constructor` escapes, `process`/`require`/`import`,
 * prototype pollution. Each is contained: the flow fails with an error naming the expression's
 * field, a pollution never reaches another expression, step or run, and the mesh keeps serving.
 */
vi.setConfig({ maxConcurrency: 32 });

let fm: FlowMesh | undefined;

beforeAll(async () => {
  fm = await startFlowMesh({
    processes: ['resource-registry', 'flow-orchestrator', 'flow-orchestrator-worker'],
  });
}, 180_000);

afterAll(async () => {
  await fm?.stop();
}, 180_000);

const echo = (inputs: Record<string, unknown>) => ({
  type: 'rawscript',
  language: 'bun',
  content: 'export function main(x: unknown) { return x; }',
  input_transforms: inputs,
});

const js = (expr: string) => ({ type: 'javascript', expr });

async function run(modules: unknown[], args: Record<string, unknown> = {}): Promise<Job> {
  if (!fm) throw new Error('the mesh did not start');
  const { job_id } = await fm.jobs.runFlow({
    actor: { token: fm.actors.admin.token },
    workspace: WORKSPACE,
    value: { summary: 'hostile', value: { modules } },
    args,
  });
  return fm.waitForEnd(job_id, 90_000);
}

function errorOf(job: Job): { name?: unknown; message?: unknown } {
  const error = isPlainObject(job.result) ? job.result.error : undefined;
  return isPlainObject(error) ? error : {};
}

/** The flow failed, and its error names the field the expression sits in. */
function expectContained(job: Job, field: RegExp): void {
  expect(job.status, JSON.stringify(job.result)).toBe('failed');
  expect(String(errorOf(job).message)).toMatch(field);
}

const HOSTILE: Array<{ name: string; modules: unknown[]; field: RegExp; why?: RegExp }> = [
  {
    name: 'an endless loop in an input transform',
    modules: [{ id: 'a', value: echo({ x: js('(() => { while (true) {} })()') }) }],
    field: /modules\[0\]\.value\.input_transforms\.x(\.expr)?/,
    why: /(?:time|interrupt)/i,
  },
  {
    name: 'an endless loop written as statements in sleep',
    modules: [
      { id: 'a', sleep: js('let i = 0; for (;;) { i++; } return 1;'), value: echo({ x: js('1') }) },
      { id: 'b', value: echo({}) },
    ],
    field: /modules\[0\]\.sleep(\.expr)?/,
  },
  {
    name: 'a 64 MB allocation in skip_if (over the memory limit at once)',
    modules: [{ id: 'a', skip_if: { expr: "'x'.repeat(1 << 26).length > 0" }, value: echo({}) }],
    field: /modules\[0\]\.skip_if(\.expr)?/,
    why: /memory/i,
  },
  {
    name: 'an array growing without end in an input transform (stopped by a limit)',
    modules: [
      {
        id: 'a',
        value: echo({ x: js('(() => { const a = []; for (let i = 0; ; i++) a[i] = i * 1.5; })()') }),
      },
    ],
    field: /modules\[0\]\.value\.input_transforms\.x(\.expr)?/,
    why: /memory|time/i,
  },
  {
    name: 'a string memory bomb in an iterator',
    modules: [
      {
        id: 'loop',
        value: {
          type: 'forloopflow',
          skip_failures: false,
          iterator: js("[(() => { let s = 'x'; for (;;) s = s + s; })()]"),
          modules: [{ id: 'body', value: { type: 'identity' } }],
        },
      },
    ],
    field: /modules\[0\]\.value\.iterator(\.expr)?/,
  },
  {
    name: 'a stack overflow in a branch expr',
    modules: [
      {
        id: 'route',
        value: {
          type: 'branchone',
          branches: [
            { expr: '(function f(n) { return f(n + 1) + 1; })(0)', modules: [{ id: 'x', value: echo({}) }] },
          ],
          default: [],
        },
      },
    ],
    field: /modules\[0\]\.value\.branches\[0\]\.expr/,
  },
  {
    name: 'a promise that never settles in stop_after_if',
    modules: [{ id: 'a', stop_after_if: { expr: 'new Promise(() => {})' }, value: echo({}) }],
    field: /modules\[0\]\.stop_after_if(\.expr)?/,
  },
  {
    name: 'constructor.constructor reaching for process',
    modules: [
      { id: 'a', value: echo({ x: js("flow_input.constructor.constructor('return process')().env") }) },
    ],
    field: /modules\[0\]\.value\.input_transforms\.x(\.expr)?/,
  },
  {
    name: 'Function via an arrow function prototype reaching for require',
    modules: [
      { id: 'a', value: echo({ x: js("(() => 0).constructor('return require')()('child_process')") }) },
    ],
    field: /modules\[0\]\.value\.input_transforms\.x(\.expr)?/,
  },
  {
    name: 'require of a Node module',
    modules: [{ id: 'a', value: echo({ x: js("require('fs').readFileSync('/etc/passwd', 'utf8')") }) }],
    field: /modules\[0\]\.value\.input_transforms\.x(\.expr)?/,
  },
  {
    name: 'process.exit',
    modules: [{ id: 'a', value: echo({ x: js('process.exit(1)') }) }],
    field: /modules\[0\]\.value\.input_transforms\.x(\.expr)?/,
  },
  {
    name: 'a dynamic import of node:child_process',
    modules: [
      {
        id: 'a',
        value: echo({ x: js("import('node:child_process').then((m) => m.execSync('id').toString())") }),
      },
    ],
    field: /modules\[0\]\.value\.input_transforms\.x(\.expr)?/,
  },
  {
    name: 'a result that is a function (not JSON)',
    modules: [{ id: 'a', value: echo({ x: js('() => 1') }) }],
    field: /modules\[0\]\.value\.input_transforms\.x(\.expr)?/,
  },
];

describe('hostile expressions are contained and reported with their field', () => {
  for (const hostile of HOSTILE) {
    it.concurrent(
      hostile.name,
      async () => {
        const job = await run(hostile.modules);
        expectContained(job, hostile.field);
        if (hostile.why) expect(String(errorOf(job).message)).toMatch(hostile.why);
      },
      120_000,
    );
  }

  it.concurrent(
    'the sandbox has no host objects to find (globalThis, Function, this)',
    async () => {
      const job = await run([
        {
          id: 'probe',
          value: echo({
            x: js(
              '[typeof process, typeof require, typeof module, typeof Buffer, typeof fetch, typeof setTimeout, ' +
                "typeof flow_input.constructor.constructor('return this')().process, " +
                "typeof Object.getPrototypeOf(async function () {}).constructor('return this')().require]",
            ),
          }),
        },
      ]);
      expect(job.status, JSON.stringify(job.result)).toBe('completed');
      expect(job.result).toEqual([
        'undefined',
        'undefined',
        'undefined',
        'undefined',
        'undefined',
        'undefined',
        'undefined',
        'undefined',
      ]);
    },
    120_000,
  );

  it.concurrent(
    'prototype pollution stays inside the one evaluation that did it',
    async () => {
      const job = await run(
        [
          {
            id: 'pollute',
            value: echo({
              x: js(
                "(Object.prototype.polluted = 'yes', Array.prototype.map = () => 'hijacked', JSON.parse = () => 'hijacked', flow_input.__proto__.polluted2 = 'yes', 1)",
              ),
            }),
          },
          {
            id: 'check',
            value: {
              type: 'rawscript',
              language: 'bun',
              content: [
                'export function main(fromExpr: unknown) {',
                '  const probe: Record<string, unknown> = {};',
                "  return { fromExpr, inScript: [probe.polluted ?? 'clean', (probe as any).polluted2 ?? 'clean'] };",
                '}',
              ].join('\n'),
              input_transforms: {
                fromExpr: js(
                  "[({}).polluted ?? 'clean', ({}).polluted2 ?? 'clean', [1, 2].map((x) => x * 2), JSON.parse('[3]'), results.pollute]",
                ),
              },
            },
          },
        ],
        { n: 1 },
      );
      expect(job.status, JSON.stringify(job.result)).toBe('completed');
      expect(job.result).toEqual({
        fromExpr: ['clean', 'clean', [2, 4], [3], 1],
        inScript: ['clean', 'clean'],
      });
    },
    120_000,
  );
});

describe('after the hostile flows', () => {
  it('the mesh is healthy: its processes answer ready and a plain flow runs at once', async () => {
    if (!fm) throw new Error('the mesh did not start');
    for (const url of Object.values(fm.mesh.urls)) {
      const ready = await fetch(`${url}/readyz`);
      expect(ready.status, url).toBe(200);
    }
    const started = Date.now();
    const job = await run([{ id: 'a', value: echo({ x: js('flow_input.n * 2') }) }], { n: 21 });
    expect(job.status, JSON.stringify(job.result)).toBe('completed');
    expect(job.result).toEqual(42);
    // Not stuck behind what the hostile flows left running (their scripts' own limits are minutes).
    expect(Date.now() - started).toBeLessThan(60_000);
    const crashed = await Promise.race([
      fm.mesh.running.crashed.then((c) => c.name),
      Promise.resolve('none'),
    ]);
    expect(crashed).toBe('none');
  }, 120_000);
});
