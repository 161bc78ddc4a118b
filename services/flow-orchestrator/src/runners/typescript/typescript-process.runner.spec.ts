import { realpathSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobWorkdirs } from '../process/job-workdir.js';
import { jobFailure as failure, scriptJobs } from '../script-job.fixture.js';
import { TypeScriptProcessRunner } from './typescript-process.runner.js';
import { TypeScriptRunner } from './typescript.runner.js';

const job = scriptJobs('bun');

let root: string;
let runner: TypeScriptProcessRunner;

beforeAll(async () => {
  root = realpathSync(await mkdtemp(join(tmpdir(), 'ts-process-runner-')));
  runner = new TypeScriptProcessRunner(
    { path: process.env.PATH ?? '/usr/bin:/bin', maxResultBytes: 64 * 1024 },
    new JobWorkdirs(root),
  );
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('TypeScriptProcessRunner', () => {
  it("runs Windmill's preprocessor first, then main with its result, in one process", async () => {
    const content = [
      'export function preprocessor(event: { body: number[] }) { return event.body; }',
      'export function main(value: number[]) { return value.length; }',
    ].join('\n');
    const preprocessed: unknown[] = [];
    const run = job(content, { args: { event: { kind: 'webhook', body: [1, 2, 3] } }, preprocess: true });
    await expect(
      runner.run(run, () => {}, { onPreprocessed: (given) => preprocessed.push(given) }),
    ).resolves.toBe(3);
    expect(preprocessed).toEqual([{ value: [1, 2, 3] }]);
  });

  it('runs the typed module with main arguments by name, an enum and an awaited result', async () => {
    const content = [
      'enum Scale { Double = 2 }',
      'export async function main(n: number, label: string = "n") {',
      '  await new Promise((resolve) => setTimeout(resolve, 1));',
      '  return { [label]: n * Scale.Double };',
      '}',
    ].join('\n');
    await expect(runner.run(job(content, { args: { n: 21, extra: true } }), () => {})).resolves.toEqual({
      n: 42,
    });
  });

  it('runs in its job directory, where steps of one workdirKey share ./shared and other runs do not', async () => {
    const write = job(
      "import { writeFileSync } from 'node:fs';\nexport function main() { writeFileSync('./shared/f', 'kept'); return process.cwd(); }",
      { workdirKey: 'run-a' },
    );
    const cwd = (await runner.run(write, () => {})) as string;
    expect(cwd.startsWith(join(root, 'jobs'))).toBe(true);
    const read =
      "import { existsSync, readFileSync } from 'node:fs';\nexport function main() { return existsSync('./shared/f') ? readFileSync('./shared/f', 'utf8') : null; }";
    await expect(runner.run(job(read, { workdirKey: 'run-a' }), () => {})).resolves.toBe('kept');
    await expect(runner.run(job(read, { workdirKey: 'run-b' }), () => {})).resolves.toBeNull();
  });

  it('passes output line by line and the job environment, not the worker one', async () => {
    const lines: string[] = [];
    const content =
      'export function main() { console.log("out"); console.error("err"); return [process.env.WM_JOB_ID ?? null, process.env.DATABASE_URL ?? null]; }';
    process.env.DATABASE_URL ??= 'postgres://worker-secret@db/x';
    await expect(
      runner.run(job(content, { env: { WM_JOB_ID: 'j1' } }), (line) => lines.push(line)),
    ).resolves.toEqual(['j1', null]);
    expect(lines).toEqual(expect.arrayContaining(['out', 'err']));
  });

  it('reports a thrown error with its name and stack, a bad import, a missing entrypoint and a syntax error', async () => {
    const thrown = await failure(
      runner.run(
        job('export function main() {\n  throw new RangeError("too far");\n}', { path: 'f/x/step' }),
        () => {},
      ),
    );
    expect([thrown.name, thrown.message]).toEqual(['RangeError', 'too far']);
    expect(thrown.jobStack).toMatch(/f\/x\/step\.ts:2/);
    const imported = await failure(
      runner.run(job("import x from './local.ts';\nexport function main() { return x; }"), () => {}),
    );
    expect(imported.name).toBe('ImportError');
    expect(imported.message).toMatch(/not a workspace script this job read before it started/);
    const missing = await failure(runner.run(job('export function other() {}'), () => {}));
    expect([missing.name, missing.message]).toEqual([
      'ExecutionErr',
      'the script exports no function named main',
    ]);
    const syntax = await failure(runner.run(job('export function main( {'), () => {}));
    expect(syntax.name).toBe('SyntaxError');
  });

  it('imports packages installed with the worker', async () => {
    const content =
      "import { parse } from 'acorn';\nexport function main() { return parse('1', { ecmaVersion: 'latest' }).type; }";
    await expect(runner.run(job(content), () => {})).resolves.toBe('Program');
  });

  it('holds the time limit, the memory limit and the result size limit', async () => {
    const slow = await failure(
      runner.run(job('export function main() { for (;;) {} }', { timeoutMs: 1_500 }), () => {}),
    );
    expect(slow.name).toBe('Timeout');
    const bomb = await failure(
      runner.run(
        job('export function main() { const a = []; for (;;) a.push({ x: Math.random() }); }', {
          memoryMb: 64,
        }),
        () => {},
      ),
    );
    expect([bomb.name, bomb.message]).toEqual([
      'MemoryLimitExceeded',
      'the job exceeded its memory limit of 64 MiB (JavaScript heap)',
    ]);
    const large = await failure(
      runner.run(job('export function main() { return "x".repeat(100_000); }'), () => {}),
    );
    expect(large.name).toBe('ResultTooLarge');
  });

  it('is what the TypeScript runner uses for jobs with a workdirKey', async () => {
    const typescript = new TypeScriptRunner(
      {
        warmThreads: 0,
        defaultMemoryMb: 256,
        jobsPerThread: 100,
        coreThreads: 1,
        maxThreads: 1,
        idleMs: 1_000,
        maxResultBytes: 64 * 1024,
      },
      runner,
    );
    try {
      const content = 'export function main() { return process.cwd(); }';
      const own = (await typescript.run(job(content, { workdirKey: 'run-c' }), () => {})) as string;
      expect(own.startsWith(join(root, 'jobs'))).toBe(true);
      const shared = (await typescript.run(job(content), () => {})) as string;
      expect(shared.startsWith(root)).toBe(false);
    } finally {
      await typescript.close();
    }
  });
});
