import { waitFor } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobFailure as failure, scriptJobs } from '../script-job.fixture.js';
import type { ScriptJob } from '../../ports/script-runner.port.js';
import { TypeScriptRunner } from './typescript.runner.js';

const job = scriptJobs('bun', { timeoutMs: 10_000, memoryMb: 128 });

const runner = new TypeScriptRunner({
  warmThreads: 1,
  defaultMemoryMb: 128,
  jobsPerThread: 1_000,
  coreThreads: 4,
  maxThreads: 4,
  idleMs: 5_000,
  maxResultBytes: 64 * 1024,
});

beforeAll(() => {
  runner.start();
});

afterAll(async () => {
  await runner.close();
});

describe('TypeScriptRunner: arguments and results', () => {
  it("runs Windmill's preprocessor first, then main with its result, in one job", async () => {
    const content = [
      'export async function preprocessor(event: { kind: string; body: { at: string } }) {',
      '  return { at: event.body.at, kind: event.kind };',
      '}',
      'export function main(at: Date, kind: string) { return [at instanceof Date, kind]; }',
    ].join('\n');
    const preprocessed: unknown[] = [];
    const args = { event: { kind: 'webhook', body: { at: '2026-01-02T03:04:05Z' } } };
    await expect(
      runner.run(job(content, { args, preprocess: true }), () => {}, {
        onPreprocessed: (given) => preprocessed.push(given),
      }),
    ).resolves.toEqual([true, 'webhook']);
    expect(preprocessed).toEqual([{ at: '2026-01-02T03:04:05Z', kind: 'webhook' }]);
    const scalar =
      'export const preprocessor = () => "x";\nexport function main(value: string) { return value; }';
    await expect(runner.run(job(scalar, { args, preprocess: true }), () => {})).resolves.toBe('x');
    const none = await failure(
      runner.run(job('export function main() {}', { args, preprocess: true }), () => {}),
    );
    expect(none.message).toBe('the script exports no function named preprocessor');
  });

  it('passes arguments by name, whatever their order, with defaults for missing ones', async () => {
    const content = `
      interface Options { upper?: boolean }
      export async function main(greeting: string, name: string = "world", opts: Options = {}): Promise<string> {
        const text: string = \`\${greeting}, \${name}\`;
        return opts.upper ? text.toUpperCase() : text;
      }`;
    await expect(
      runner.run(job(content, { args: { name: 'ada', greeting: 'hi', extra: 1 } }), () => {}),
    ).resolves.toBe('hi, ada');
    await expect(
      runner.run(job(content, { args: { greeting: 'yo', opts: { upper: true } } }), () => {}),
    ).resolves.toBe('YO, WORLD');
  });

  it('reads arrow functions, destructured parameters and other entrypoints', async () => {
    await expect(
      runner.run(
        job('export const main = async (a: number, b: number) => a * b;', { args: { b: 6, a: 7 } }),
        () => {},
      ),
    ).resolves.toBe(42);
    await expect(
      runner.run(
        job('export function main({ a, b }: { a: number; b: number }) { return a - b }', {
          args: { a: 5, b: 2 },
        }),
        () => {},
      ),
    ).resolves.toBe(3);
    await expect(
      runner.run(
        job(
          'export function main() { return 1 }\nexport function preprocessor(event: { kind: string }) { return { kind: event.kind } }',
          {
            args: { event: { kind: 'webhook' } },
            entrypoint: 'preprocessor',
          },
        ),
        () => {},
      ),
    ).resolves.toEqual({ kind: 'webhook' });
  });

  it('gives arrays and objects of the job realm, and returns null for undefined', async () => {
    await expect(
      runner.run(
        job('export function main(xs: number[]) { return [xs instanceof Array, xs.map((x) => x + 1)] }', {
          args: { xs: [1, 2] },
        }),
        () => {},
      ),
    ).resolves.toEqual([true, [2, 3]]);
    await expect(runner.run(job('export function main() {}'), () => {})).resolves.toBeNull();
  });

  it('gives a BigInt of the result as its decimal digits, as Windmill does', async () => {
    await expect(
      runner.run(job('export function main() { return [9007199254740993n, { n: -2n }] }'), () => {}),
    ).resolves.toEqual(['9007199254740993', { n: '-2' }]);
  });

  it('runs TypeScript that needs more than type erasure (enums)', async () => {
    const content =
      'enum Color { Red = "red", Blue = "blue" }\nexport function main(): string { return Color.Blue }';
    await expect(runner.run(job(content), () => {})).resolves.toBe('blue');
  });

  it('fails clearly on a missing main, a result that is not JSON, and a result over the size limit', async () => {
    expect((await failure(runner.run(job('export const x = 1'), () => {}))).message).toBe(
      'the script exports no function named main',
    );
    const notJson = await failure(
      runner.run(job('export function main() { const o: any = {}; o.self = o; return o }'), () => {}),
    );
    expect(notJson.name).toBe('ExecutionErr');
    expect(notJson.message).toMatch(/^the result is not JSON: .*circular/);
    const big = await failure(
      runner.run(job('export function main() { return "x".repeat(100_000) }'), () => {}),
    );
    expect(big.name).toBe('ResultTooLarge');
    expect(big.message).toBe('the result is 97.7 KiB, over the limit of 64 KiB (FLOWMESH_MAX_RESULT_BYTES)');
  });
});

describe('TypeScriptRunner: errors and logs', () => {
  it('turns a thrown error into a JobError with its name, message and stack', async () => {
    const content = `
      class QuotaError extends Error { constructor(m: string) { super(m); this.name = 'QuotaError'; } }
      export function main() { throw new QuotaError('quota reached for acme'); }`;
    const error = await failure(runner.run(job(content, { path: 'f/demo/quota' }), () => {}));
    expect(error.name).toBe('QuotaError');
    expect(error.message).toBe('quota reached for acme');
    expect(error.jobStack).toMatch(
      /QuotaError: quota reached for acme\n\s+at main \(file:\/\/\/f\/demo\/quota\.ts:3:/,
    );
    // The user's frames only: none of the worker's files, Node's internals or dependencies.
    expect(error.jobStack).not.toMatch(/services\/flow-orchestrator|node:internal|node_modules/);
    const thrownString = await failure(
      runner.run(job('export async function main() { throw "plain" }'), () => {}),
    );
    expect([thrownString.name, thrownString.message]).toEqual(['Error', 'plain']);
  });

  it('reports a syntax error', async () => {
    const error = await failure(runner.run(job('export function main( { return 1 }'), () => {}));
    expect(error.name).toBe('SyntaxError');
  });

  it('captures console and process.stdout output line by line', async () => {
    const lines: string[] = [];
    const content = `
      export function main() {
        console.log('one', { a: 1 }, [2]);
        console.error('two\\nthree');
        console.log('%s has %d items', 'cart', 3);
        process.stdout.write('partial ');
        process.stdout.write('line\\n');
        process.stderr.write('no newline at the end');
        return 'ok';
      }`;
    await expect(runner.run(job(content), (line) => lines.push(line))).resolves.toBe('ok');
    expect(lines).toEqual([
      'one {"a":1} [2]',
      'two',
      'three',
      'cart has 3 items',
      'partial line',
      'no newline at the end',
    ]);
  });

  it('delivers log lines while the job still runs', async () => {
    const controller = new AbortController();
    let sawLine!: () => void;
    const firstLine = new Promise<void>((resolve) => (sawLine = resolve));
    const running = runner.run(
      job(
        'export async function main() { console.log("started"); await new Promise((r) => setTimeout(r, 60_000)); }',
      ),
      (line) => line === 'started' && sawLine(),
      { signal: controller.signal },
    );
    let ended = false;
    void running.catch(() => undefined).finally(() => (ended = true));
    await firstLine;
    expect(ended).toBe(false);
    controller.abort();
    const error = await failure(running);
    expect([error.name, error.message]).toEqual(['Canceled', 'the job was canceled']);
  });
});

describe('TypeScriptRunner: limits', () => {
  it('stops an endless loop at the time limit, and the next job runs', async () => {
    // An endless loop ends only when stopped: the Timeout error alone shows the limit did it.
    const error = await failure(
      runner.run(job('export function main() { for (;;) {} }', { timeoutMs: 300 }), () => {}),
    );
    expect([error.name, error.message]).toEqual([
      'Timeout',
      'the job did not finish within its time limit of 300 ms and was stopped',
    ]);
    await expect(runner.run(job('export function main() { return 2 }'), () => {})).resolves.toBe(2);
  });

  it('stops a job at its memory limit', async () => {
    const content =
      'export function main() { const keep: number[][] = []; for (;;) keep.push(new Array(100_000).fill(1)); }';
    const error = await failure(runner.run(job(content, { memoryMb: 48, timeoutMs: 60_000 }), () => {}));
    expect([error.name, error.message]).toEqual([
      'MemoryLimitExceeded',
      'the job exceeded its memory limit of 48 MiB (JavaScript heap)',
    ]);
  });

  it('counts what ArrayBuffers hold: a job over its limit in buffers is stopped, and its thread with it', async () => {
    // 8 MiB every 10 ms, kept, while the heap itself stays small: V8's own limit never trips.
    // Paced: the check looks every 100 ms, and an unpaced loop on a loaded machine could take
    // gigabytes before it is seen (a hard bound needs the job in a process of its own).
    const content = `export async function main() {
      const keep: Uint8Array[] = [];
      for (;;) {
        keep.push(new Uint8Array(8 * 1024 * 1024).fill(1));
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }`;
    const error = await failure(runner.run(job(content, { memoryMb: 64, timeoutMs: 60_000 }), () => {}));
    expect([error.name, error.message]).toEqual([
      'MemoryLimitExceeded',
      'the job exceeded its memory limit of 64 MiB (heap and buffers)',
    ]);
    // Buffers under the limit are the job's to use.
    const within =
      'export function main() { const a = new Uint8Array(16 * 1024 * 1024).fill(1); return a.length; }';
    await expect(runner.run(job(within, { memoryMb: 64 }), () => {})).resolves.toBe(16 * 1024 * 1024);
  });

  it('fails a job whose timer callback throws', async () => {
    const content = `export async function main() {
      setTimeout(() => { throw new RangeError('from a timer'); }, 1);
      await new Promise((r) => setTimeout(r, 5_000));
    }`;
    const error = await failure(runner.run(job(content), () => {}));
    expect([error.name, error.message]).toEqual(['RangeError', 'from a timer']);
  });
});

describe('TypeScriptRunner: isolation', () => {
  it('a global or prototype change by one job is invisible to the next, in the same thread', async () => {
    await runner.run(
      job(
        'export function main() { (globalThis as any).leak = "secret"; (Object.prototype as any).polluted = 1; Array.prototype.map = () => []; return 1 }',
      ),
      () => {},
    );
    await expect(
      runner.run(
        job(
          'export function main() { return [typeof (globalThis as any).leak, ({} as any).polluted ?? "clean", [1].map((x) => x * 2)] }',
        ),
        () => {},
      ),
    ).resolves.toEqual(['undefined', 'clean', [2]]);
  });

  it('jobs of one realm key (one run) share globals in turn, each with its own environment; other keys never see them', async () => {
    const set =
      'export function main() { (globalThis as any).seen = ((globalThis as any).seen ?? 0) + 1; return [(globalThis as any).seen, process.env.STEP, Bun.env.STEP] }';
    await expect(runner.run(job(set, { realmKey: 'run-1', env: { STEP: 'a' } }), () => {})).resolves.toEqual([
      1,
      'a',
      'a',
    ]);
    await expect(runner.run(job(set, { realmKey: 'run-1', env: { STEP: 'b' } }), () => {})).resolves.toEqual([
      2,
      'b',
      'b',
    ]);
    await expect(runner.run(job(set, { realmKey: 'run-2', env: { STEP: 'c' } }), () => {})).resolves.toEqual([
      1,
      'c',
      'c',
    ]);
    await expect(runner.run(job(set, { env: { STEP: 'd' } }), () => {})).resolves.toEqual([1, 'd', 'd']);
    await expect(runner.run(job(set, { realmKey: 'run-1', env: { STEP: 'e' } }), () => {})).resolves.toEqual([
      3,
      'e',
      'e',
    ]);
  });

  it("a run's step that leaves a large global does not leave the next run's job short of memory", async () => {
    // About 60 MiB each under a 128 MiB limit: two kept at once do not fit.
    const hold = (key: string) =>
      runner.run(
        job(
          'export function main() { (globalThis as any).big = Array.from({ length: 4 }, () => new Array(2_000_000).fill(1.5)); return (globalThis as any).big.length }',
          { realmKey: key, memoryMb: 128, timeoutMs: 30_000 },
        ),
        () => {},
      );
    await expect(hold('heavy-run-1')).resolves.toBe(4);
    await expect(hold('heavy-run-2')).resolves.toBe(4);
    await expect(hold('heavy-run-3')).resolves.toBe(4);
  });

  it('output a job of a shared realm leaves running never reaches the next job of that realm', async () => {
    const leave = 'export function main() { setInterval(() => console.log("left behind"), 5); return 1 }';
    await runner.run(job(leave, { realmKey: 'run-3' }), () => {});
    const lines: string[] = [];
    // Runs long enough for the interval left behind to fire many times (the lines must not show).
    const wait =
      'export async function main() { await new Promise((r) => setTimeout(r, 60)); console.log("mine"); return 2 }';
    await expect(runner.run(job(wait, { realmKey: 'run-3' }), (line) => lines.push(line))).resolves.toBe(2);
    expect(lines).toEqual(['mine']);
  });

  it('a job that touched a thread global (Buffer) leaves its thread, so a change to it reaches no one', async () => {
    const poison =
      'export function main() { (Buffer as any).poisoned = "yes"; return Buffer.from("hi").toString("base64") }';
    await expect(runner.run(job(poison), () => {})).resolves.toBe('aGk=');
    await expect(
      runner.run(job('export function main() { return (Buffer as any).poisoned ?? "clean" }'), () => {}),
    ).resolves.toBe('clean');
  });

  it('output a job leaves running after it returned never reaches the next job', async () => {
    const leaky = `export function main() {
      (async () => { for (let i = 0; i < 1000; i++) await null; console.log('late line from the first job'); })();
      setTimeout(() => console.log('late timer line'), 5);
      return 'first';
    }`;
    await expect(runner.run(job(leaky), () => {})).resolves.toBe('first');
    const lines: string[] = [];
    // Runs past the first job's timer and promise loop (whose lines must not show).
    const next =
      'export async function main() { await new Promise((r) => setTimeout(r, 30)); console.log("second"); return 2 }';
    await expect(runner.run(job(next), (line) => lines.push(line))).resolves.toBe(2);
    expect(lines).toEqual(['second']);
  });

  it('an endless promise loop left behind fails its own job, not the next one', async () => {
    const guilty = 'export function main() { (async () => { for (;;) await null; })(); return 1 }';
    const error = await failure(runner.run(job(guilty, { timeoutMs: 500 }), () => {}));
    expect(error.name).toBe('Timeout');
    await expect(runner.run(job('export function main() { return "innocent" }'), () => {})).resolves.toBe(
      'innocent',
    );
  });

  it('a job sees its own environment, not the worker process environment', async () => {
    process.env.FLOWMESH_TEST_SECRET = 'host-only';
    const content = `import nodeProcess from 'node:process';
      export function main() {
        return [process.env.WM_WORKSPACE, Bun.env.WM_WORKSPACE, Deno.env.get('WM_WORKSPACE'),
          process.env.FLOWMESH_TEST_SECRET ?? null, nodeProcess.env.FLOWMESH_TEST_SECRET ?? null, nodeProcess.env.WM_WORKSPACE];
      }`;
    await expect(runner.run(job(content, { env: { WM_WORKSPACE: 'acme' } }), () => {})).resolves.toEqual([
      'acme',
      'acme',
      'acme',
      null,
      null,
      'acme',
    ]);
  });

  it('imports Node built-ins and refuses what the worker cannot resolve', async () => {
    const content = `import { createHash } from 'node:crypto';
      export function main(text: string) { return createHash('sha256').update(text).digest('hex').slice(0, 8) }`;
    await expect(runner.run(job(content, { args: { text: 'abc' } }), () => {})).resolves.toBe('ba7816bf');
    const missing = await failure(
      runner.run(
        job('import * as wmill from "windmill-client";\nexport function main() { return 1 }'),
        () => {},
      ),
    );
    expect(missing.name).toBe('ImportError');
    expect(missing.message).toMatch(/^import of 'windmill-client' failed: /);
    const url = await failure(
      runner.run(
        job('import x from "https://deno.land/x/mod.ts";\nexport function main() { return x }'),
        () => {},
      ),
    );
    expect(url.message).toMatch(/URL and registry imports are not supported/);
  });

  it('a job cannot reach the thread realm through the context it is given', async () => {
    const content = `export function main() {
      const viaConsole = (console.log as any).constructor('return typeof require + typeof process.binding')();
      const viaGlobal = (globalThis as any).constructor.constructor('return typeof process.binding')();
      const viaTimer = typeof setTimeout(() => {}, 1);
      return [viaConsole, viaGlobal, viaTimer];
    }`;
    await expect(runner.run(job(content), () => {})).resolves.toEqual([
      'undefinedundefined',
      'undefined',
      'number',
    ]);
  });
});

describe('TypeScriptRunner: a bounded thread pool', () => {
  const poolOf = (coreThreads: number, maxThreads: number, realmHoldMs?: number): TypeScriptRunner =>
    new TypeScriptRunner({
      warmThreads: 1,
      defaultMemoryMb: 128,
      jobsPerThread: 1_000,
      coreThreads,
      maxThreads,
      idleMs: 5_000,
      maxResultBytes: 1024,
      ...(realmHoldMs !== undefined ? { realmHoldMs } : {}),
    });
  const sleepy =
    'export async function main(ms: number) { await new Promise((r) => setTimeout(r, ms)); return ms; }';
  const withPool = async (
    coreThreads: number,
    maxThreads: number,
    use: (pool: TypeScriptRunner) => Promise<void>,
    realmHoldMs?: number,
  ) => {
    const pool = poolOf(coreThreads, maxThreads, realmHoldMs);
    pool.start();
    try {
      await use(pool);
    } finally {
      await pool.close();
    }
  };

  it('runs more jobs than it has threads: the rest wait their turn, and each job gets its whole time limit', async () => {
    await withPool(2, 2, async (small) => {
      // Two jobs hold both threads for longer than a third job's time limit: asked in the same
      // tick, the third waits for one of them, so longer than its limit, and still succeeds,
      // because the wait for a thread is not counted. Its own run is trivial, well within 3 s.
      const holders = [0, 1].map(() =>
        small.run(job(sleepy, { args: { ms: 3_500 }, timeoutMs: 60_000 }), () => {}),
      );
      const asked = Date.now();
      let started = 0;
      const third = small.run(
        job('export function main() { return "third" }', { timeoutMs: 3_000 }),
        () => {},
        {
          onStart: () => (started = Date.now()),
        },
      );
      await expect(third).resolves.toBe('third');
      expect(started - asked).toBeGreaterThanOrEqual(3_000);
      await expect(Promise.all(holders)).resolves.toEqual([3_500, 3_500]);
    });
  });

  it('grows past its core threads while their jobs only await (I/O, timers), up to the maximum', async () => {
    await withPool(1, 3, async (growing) => {
      // Jobs that await far longer than the test: the pool holds still at three threads, two waiting.
      const controller = new AbortController();
      let started = 0;
      const runs = Array.from({ length: 5 }, () =>
        failure(
          growing.run(job(sleepy, { args: { ms: 600_000 }, timeoutMs: 600_000 }), () => {}, {
            signal: controller.signal,
            onStart: () => started++,
          }),
        ),
      );
      await waitFor(() => started === 3 && growing.stats().waiting === 2, {
        description: 'three jobs running and two waiting',
      });
      expect(growing.stats()).toMatchObject({ threads: 3, waiting: 2 });
      controller.abort();
      expect((await Promise.all(runs)).map((error) => error.name)).toEqual(runs.map(() => 'Canceled'));
    });
  });

  it('jobs waiting for a thread go by priority, first come first served among equals', async () => {
    const single = poolOf(1, 1);
    single.start();
    try {
      const order: string[] = [];
      // The others are asked once the thread is busy's (the pool answers the thread's start before
      // its end, whatever the load): they all wait, and get the thread in their order.
      let busyStarted!: () => void;
      const started = new Promise<void>((resolve) => (busyStarted = resolve));
      const busy = single.run(job(sleepy, { args: { ms: 300 } }), () => {}, { onStart: () => busyStarted() });
      await started;
      const queued = [
        ['low', undefined],
        ['high-1', 10],
        ['mid', 5],
        ['high-2', 10],
      ] as const;
      await Promise.all([
        busy,
        ...queued.map(([name, priority]) =>
          single
            .run(
              job(`export function main() { return '${name}' }`, priority === undefined ? {} : { priority }),
              () => {},
            )
            .then((value) => order.push(value as string)),
        ),
      ]);
      expect(order).toEqual(['high-1', 'high-2', 'mid', 'low']);
    } finally {
      await single.close();
    }
  });

  it('a script changed under the same path runs as changed, its parameters read anew, on a thread that ran it', async () => {
    await withPool(1, 1, async (single) => {
      const args = { a: 1, b: 2, c: 3 };
      const run = (content: string, realmKey?: string) =>
        single.run(job(content, { path: 'f/demo/step', args, ...(realmKey ? { realmKey } : {}) }), () => {});
      await expect(run('export function main(a: number, b: number) { return [a, b] }')).resolves.toEqual([
        1, 2,
      ]);
      await expect(run('export function main(b: number, c: number) { return [b, c] }')).resolves.toEqual([
        2, 3,
      ]);
      await expect(
        run('export function main(b: number, c: number) { return [c, b] }', 'run-1'),
      ).resolves.toEqual([3, 2]);
      await expect(
        run('export function main(a: number, b: number) { return [a, b] }', 'run-1'),
      ).resolves.toEqual([1, 2]);
    });
  });

  it("a job that imports sees its own environment in the thread, never an earlier job's", async () => {
    await withPool(1, 1, async (single) => {
      const plain = 'export function main() { return process.env.STEP }';
      const imports = `import nodeProcess from 'node:process';
        export function main() { return [nodeProcess.env.STEP ?? null, nodeProcess.env.OTHER ?? null] }`;
      await expect(single.run(job(plain, { env: { STEP: 'a' } }), () => {})).resolves.toBe('a');
      await expect(single.run(job(imports, { env: { STEP: 'b' } }), () => {})).resolves.toEqual(['b', null]);
      await expect(single.run(job(plain, { env: { STEP: 'c' } }), () => {})).resolves.toBe('c');
      await expect(single.run(job(imports, { env: { OTHER: 'd' } }), () => {})).resolves.toEqual([null, 'd']);
    });
  });

  it('a job canceled while it waits for a thread never runs and fails as canceled', async () => {
    const single = poolOf(1, 1);
    single.start();
    try {
      let firstDone = false;
      let firstStarted!: () => void;
      const running = new Promise<void>((resolve) => (firstStarted = resolve));
      const first = single
        .run(job(sleepy, { args: { ms: 400 } }), () => {}, { onStart: () => firstStarted() })
        .then((value) => {
          firstDone = true;
          return value;
        });
      const controller = new AbortController();
      const lines: string[] = [];
      const second = single.run(
        job('export function main() { console.log("ran"); return 1 }'),
        (line) => lines.push(line),
        {
          signal: controller.signal,
        },
      );
      // Canceled once the first job has the only thread, so while the second waits for it.
      await running;
      controller.abort();
      const error = await failure(second);
      expect(error.name).toBe('Canceled');
      expect(firstDone).toBe(false);
      await expect(first).resolves.toBe(400);
      // The thread is free again for the next job; the canceled one left no output.
      await expect(single.run(job('export function main() { return 3 }'), () => {})).resolves.toBe(3);
      expect(lines).toEqual([]);
    } finally {
      await single.close();
    }
  });

  it('a job canceled while its thread starts never runs and fails as canceled', async () => {
    // Not started: the pool has no warm thread, so the job's own thread is still starting.
    const cold = poolOf(1, 1);
    try {
      const controller = new AbortController();
      const lines: string[] = [];
      const running = cold.run(
        job('export function main() { console.log("ran"); return 1 }'),
        (line) => lines.push(line),
        { signal: controller.signal },
      );
      controller.abort();
      expect((await failure(running)).name).toBe('Canceled');
      expect(lines).toEqual([]);
      // The thread it did not use serves the next job.
      await expect(cold.run(job('export function main() { return 2 }'), () => {})).resolves.toBe(2);
    } finally {
      await cold.close();
    }
  });

  describe("a run's step whose realm a busy thread keeps", () => {
    const mark = 'export function main() { (globalThis as any).mark = "kept"; return "set" }';
    const readMark = 'export function main() { return (globalThis as any).mark ?? "fresh" }';
    const compute =
      'export function main(ms: number) { const end = Date.now() + ms; while (Date.now() < end); return ms }';
    /**
     * Two threads, X and Y, both idle; run-1's first step leaves a global on X, then another run's
     * step computes on X for `busyMs` while Y stays idle. Jobs wait for their realm's thread up to
     * `realmHoldMs`.
     */
    const whileKeeperBusy = (
      busyMs: number,
      use: (pool: TypeScriptRunner) => Promise<void>,
      realmHoldMs = 5_000,
    ): Promise<void> =>
      withPool(
        2,
        2,
        async (pool) => {
          await Promise.all([0, 1].map(() => pool.run(job(sleepy, { args: { ms: 30 } }), () => {})));
          // A1 takes the thread idle longest (X); a job without a realm then takes Y, leaving X first.
          await expect(pool.run(job(mark, { realmKey: 'run-1' }), () => {})).resolves.toBe('set');
          await pool.run(job('export function main() { return 0 }'), () => {});
          // The pool hands out threads synchronously: X is run-2's from here on.
          const busy = pool.run(job(compute, { realmKey: 'run-2', args: { ms: busyMs } }), () => {});
          await use(pool);
          await expect(busy).resolves.toBe(busyMs);
        },
        realmHoldMs,
      );
    /** Runs a job and notes `name` in `order` when it ends. */
    const noted = (
      pool: TypeScriptRunner,
      order: string[],
      name: string,
      content: string,
      extra: Partial<ScriptJob> = {},
    ): Promise<unknown> => pool.run(job(content, extra), () => {}).then((value) => (order.push(name), value));

    // The keeper computes for seconds: whatever the load, the other jobs are done long before (at
    // 2 s a trivial job on the idle thread once ended after it, with both cores busy and the
    // whole suite running: 6 s, and run-1's step waits for its thread up to 10 s).
    it('waits for that thread and reuses its realm, while a later job takes the idle thread', async () => {
      await whileKeeperBusy(
        6_000,
        async (pool) => {
          const order: string[] = [];
          const second = noted(pool, order, 'run-1 step 2', readMark, { realmKey: 'run-1' });
          // An idle thread does not sit unused while run-1's step waits for its own.
          const other = noted(pool, order, 'other', 'export function main() { return "other" }');
          await expect(other).resolves.toBe('other');
          await expect(second).resolves.toBe('kept');
          expect(order).toEqual(['other', 'run-1 step 2']);
        },
        10_000,
      );
    }, 30_000);

    it('waits at most the bound, then runs on another thread', async () => {
      await whileKeeperBusy(
        6_000,
        async (pool) => {
          const asked = Date.now();
          let started = 0;
          await expect(
            pool.run(job(readMark, { realmKey: 'run-1' }), () => {}, {
              onStart: () => (started = Date.now()),
            }),
          ).resolves.toBe('fresh');
          expect(started - asked).toBeGreaterThanOrEqual(290);
          // Well before the keeper is free again.
          expect(started - asked).toBeLessThan(5_000);
        },
        300,
      );
    }, 30_000);

    it('never makes a job of higher priority wait behind one of lower: it takes the idle thread', async () => {
      await whileKeeperBusy(2_000, async (pool) => {
        const order: string[] = [];
        const urgent = noted(pool, order, 'urgent', readMark, { realmKey: 'run-1', priority: 10 });
        const low = noted(pool, order, 'low', 'export function main() { return "low" }');
        await expect(urgent).resolves.toBe('fresh');
        await expect(low).resolves.toBe('low');
        expect(order).toEqual(['urgent', 'low']);
      });
    });

    it('is canceled while it waits, and never runs', async () => {
      await whileKeeperBusy(400, async (pool) => {
        const controller = new AbortController();
        const lines: string[] = [];
        const waiting = pool.run(
          job('export function main() { console.log("ran"); return 1 }', { realmKey: 'run-1' }),
          (line) => lines.push(line),
          { signal: controller.signal },
        );
        controller.abort();
        expect((await failure(waiting)).name).toBe('Canceled');
        expect(pool.stats().waiting).toBe(0);
        expect(lines).toEqual([]);
      });
    });
  });
});

describe('TypeScriptRunner: threads a job reached into (imports)', () => {
  const withRunner = async (
    options: { coreThreads: number; maxThreads: number; warmThreads: number },
    use: (pool: TypeScriptRunner) => Promise<void>,
  ) => {
    const pool = new TypeScriptRunner({
      defaultMemoryMb: 128,
      jobsPerThread: 1_000,
      idleMs: 60_000,
      maxResultBytes: 64 * 1024,
      // Kept far longer than the test: no timing in it decides which thread a step gets.
      runThreadKeepMs: 600_000,
      ...options,
    });
    pool.start();
    try {
      await use(pool);
    } finally {
      await pool.close();
    }
  };
  // Monkeypatches node:fs in the thread's realm and leaves a global there, then says where it ran.
  const patchFs = `import fs from 'node:fs';
    import { threadId } from 'node:worker_threads';
    export function main() {
      (fs as any).readFileSync = () => 'patched';
      (globalThis as any).leftBehind = 'yes';
      return threadId;
    }`;
  const lookAtFs = `import fs from 'node:fs';
    import { threadId } from 'node:worker_threads';
    export function main() {
      const patched = (fs as any).readFileSync('/dev/null', 'utf8') === 'patched';
      return [patched ? 'patched' : 'clean', threadId];
    }`;
  const counters = (pool: TypeScriptRunner) => pool.stats().counters!;

  it('a job of another run gets a thread of its own, started ahead: it sees no change of the importing job and waits for no start', async () => {
    await withRunner({ coreThreads: 4, maxThreads: 8, warmThreads: 2 }, async (pool) => {
      for (const realmKey of [undefined, 'run-a']) {
        const first = await pool.run(job(patchFs, realmKey ? { realmKey } : {}), () => {});
        // The spares are topped up in the background; once they are there, the next job takes one.
        await waitFor(() => pool.stats().ready! >= 2, { description: 'two spare threads started' });
        const before = counters(pool);
        const [state, thread] = (await pool.run(
          job(lookAtFs, { realmKey: `next-of-${realmKey}` }),
          () => {},
        )) as [string, number];
        expect(state).toBe('clean');
        expect(thread).not.toBe(first);
        expect(counters(pool).bootWaits).toBe(before.bootWaits);
        expect(counters(pool).runThreadReuses).toBe(before.runThreadReuses);
      }
    });
  });

  it("the same run's next step runs on that thread (a run's steps share its trust); another run's never does", async () => {
    // One thread at most: the other run's job must end the kept thread and start its own.
    await withRunner({ coreThreads: 1, maxThreads: 1, warmThreads: 1 }, async (pool) => {
      const first = await pool.run(job(patchFs, { realmKey: 'run-x', env: { STEP: 'a' } }), () => {});
      const started = counters(pool).started;
      const sameRun = `import fs from 'node:fs';
        import nodeProcess from 'node:process';
        import { threadId } from 'node:worker_threads';
        export function main() {
          return [(fs as any).readFileSync('/dev/null', 'utf8'), (globalThis as any).leftBehind ?? null, nodeProcess.env.STEP, threadId];
        }`;
      // Its realm is the run's too (a global it left is there), and the thread's env is the step's own.
      await expect(
        pool.run(job(sameRun, { realmKey: 'run-x', env: { STEP: 'b' } }), () => {}),
      ).resolves.toEqual(['patched', 'yes', 'b', first]);
      expect(counters(pool)).toMatchObject({ started, runThreadReuses: 1 });
      // A step that touches nothing does not make the thread anyone else's again.
      await expect(
        pool.run(job('export function main() { return 1 }', { realmKey: 'run-x' }), () => {}),
      ).resolves.toBe(1);
      expect(counters(pool).runThreadReuses).toBe(2);
      for (const realmKey of ['run-y', undefined]) {
        const [state, thread] = (await pool.run(job(lookAtFs, realmKey ? { realmKey } : {}), () => {})) as [
          string,
          number,
        ];
        expect(state).toBe('clean');
        expect(thread).not.toBe(first);
      }
      expect(counters(pool).runThreadReuses).toBe(2);
    });
  });

  it('another run acting with the same authority reuses that thread in a realm of its own; one of another authority never does', async () => {
    await withRunner({ coreThreads: 1, maxThreads: 1, warmThreads: 1 }, async (pool) => {
      const alice = { trustKey: '["main","u/alice",[]]' };
      const first = await pool.run(job(patchFs, { ...alice, realmKey: 'run-1' }), () => {});
      const started = counters(pool).started;
      const lookAround = `import fs from 'node:fs';
        import { threadId } from 'node:worker_threads';
        export function main() {
          return [(fs as any).readFileSync('/dev/null', 'utf8'), (globalThis as any).leftBehind ?? null, threadId];
        }`;
      // The thread and its patched module are alice's; the first run's globals are not the next run's.
      await expect(pool.run(job(lookAround, { ...alice, realmKey: 'run-2' }), () => {})).resolves.toEqual([
        'patched',
        null,
        first,
      ]);
      expect(counters(pool)).toMatchObject({ started, runThreadReuses: 1 });
      // The same principal with other scopes, or another principal: another authority.
      for (const trustKey of ['["main","u/alice",["read"]]', '["main","u/bob",[]]']) {
        const [state, , thread] = (await pool.run(
          job(lookAround, { trustKey, realmKey: 'run-3' }),
          () => {},
        )) as [string, unknown, number];
        expect([state, thread === first]).toEqual(['', false]);
      }
      expect(counters(pool).runThreadReuses).toBe(1);
    });
  });

  it('a thread whose job let an error escape is not kept, not even for its run', async () => {
    await withRunner({ coreThreads: 2, maxThreads: 2, warmThreads: 1 }, async (pool) => {
      const escapes = `import { threadId } from 'node:worker_threads';
        export function main() { setTimeout(() => { throw new Error('late') }, 1); return new Promise(() => {}) }`;
      expect((await failure(pool.run(job(escapes, { realmKey: 'run-z' }), () => {}))).message).toBe('late');
      const [state] = (await pool.run(job(lookAtFs, { realmKey: 'run-z' }), () => {})) as [string, number];
      expect(state).toBe('clean');
      expect(counters(pool).runThreadReuses).toBe(0);
    });
  });
});
