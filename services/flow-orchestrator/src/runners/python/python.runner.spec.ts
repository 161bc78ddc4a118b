import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MeshError, pythonLockText, type Script } from '@flowmesh/contracts';
import { JobWorkdirs } from '../process/job-workdir.js';
import { jobFailure as failure, scriptJobs } from '../script-job.fixture.js';
import { PythonRunner } from './python.runner.js';

const job = scriptJobs('python3');

let root: string;
let runner: PythonRunner;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'python-runner-'));
  runner = new PythonRunner(
    { executable: 'python3', path: process.env.PATH ?? '/usr/bin:/bin', maxResultBytes: 64 * 1024 },
    new JobWorkdirs(root),
  );
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('PythonRunner: workspace imports', () => {
  const deployed: Record<string, { language: string; content: string }> = {
    'f/lib/helpers': { language: 'python3', content: 'def scale(x):\n    return 2 * x\n' },
    'f/lib/base': { language: 'python3', content: 'from .helpers import scale\nBASE = scale(50)\n' },
    'f/lib/ts': { language: 'bun', content: 'export const x = 1;' },
  };
  const reads: string[] = [];
  const withScripts = (): PythonRunner =>
    new PythonRunner(
      {
        executable: 'python3',
        path: process.env.PATH ?? '/usr/bin:/bin',
        maxResultBytes: 64 * 1024,
        scripts: ({ path, hash }) => {
          reads.push(`${path}@${hash ?? 'current'}`);
          const script = deployed[path];
          if (!script) return Promise.reject(new MeshError('NOT_FOUND', `script ${path} not found`));
          return Promise.resolve({ path, hash: 'h', ...script } as unknown as Script);
        },
      },
      new JobWorkdirs(root),
    );

  it("runs a script as the module its path names, with what it imports by Windmill's names beside it", async () => {
    reads.length = 0;
    const content =
      'from .base import BASE\nfrom f.lib.helpers import scale\n\ndef main(n):\n    return [scale(n), BASE, __name__]';
    const lock = pythonLockText({ pins: {}, scripts: { 'f/lib/helpers': 'v1' } });
    await expect(
      withScripts().run(
        job(content, { path: 'f/lib/main', args: { n: 2 }, env: { WM_TOKEN: 't' }, lock }),
        () => {},
      ),
    ).resolves.toEqual([4, 100, 'f.lib.main']);
    expect(reads.sort()).toEqual(['f/lib/base@current', 'f/lib/helpers@v1']);
  });

  it('fails naming the import when it is not a python3 script or the job has no token', async () => {
    const ts = await failure(
      withScripts().run(
        job('from f.lib.ts import x\ndef main():\n    return 1', { env: { WM_TOKEN: 't' } }),
        () => {},
      ),
    );
    expect([ts.name, ts.message]).toEqual([
      'ImportError',
      "import of '/f/lib/ts': script f/lib/ts is bun, not python3",
    ]);
    const tokenless = await failure(
      withScripts().run(job('import f.lib.helpers\ndef main():\n    return 1'), () => {}),
    );
    expect(tokenless.message).toContain('the job has no token to read it with');
  });
});

describe('PythonRunner', () => {
  it("runs Windmill's preprocessor first, then main with its result, in one process", async () => {
    const content = [
      'def preprocessor(event):',
      '    return {"n": event["body"]["n"], "seen": event["kind"]}',
      'def main(n, seen):',
      '    return {"twice": n * 2, "seen": seen}',
    ].join('\n');
    const preprocessed: unknown[] = [];
    const args = { event: { kind: 'webhook', body: { n: 4 } } };
    await expect(
      runner.run(job(content, { args, preprocess: true }), () => {}, {
        onPreprocessed: (given) => preprocessed.push(given),
      }),
    ).resolves.toEqual({ twice: 8, seen: 'webhook' });
    expect(preprocessed).toEqual([{ n: 4, seen: 'webhook' }]);
    // Anything but a dict is `{ value }`; a main that then fails still reports them.
    const scalar = 'def preprocessor(event):\n    return 3\ndef main(value):\n    raise ValueError(value)';
    const reported: unknown[] = [];
    const error = await failure(
      runner.run(job(scalar, { args, preprocess: true }), () => {}, {
        onPreprocessed: (g) => reported.push(g),
      }),
    );
    expect([error.name, error.message, reported]).toEqual(['ValueError', '3', [{ value: 3 }]]);
    const none = await failure(
      runner.run(job('def main():\n    pass', { args, preprocess: true }), () => {}),
    );
    expect(none.message).toBe('the script defines no function named preprocessor');
  });

  it('calls main with keyword arguments by name, defaults and **kwargs', async () => {
    const content = [
      'def main(x: int, name: str = "world", *, flag=False, **rest):',
      '    return {"x": x * 2, "name": name, "flag": flag, "rest": rest, "none": None}',
    ].join('\n');
    await expect(
      runner.run(job(content, { args: { extra: 1, x: 4, flag: true } }), () => {}),
    ).resolves.toEqual({
      x: 8,
      name: 'world',
      flag: true,
      rest: { extra: 1 },
      none: null,
    });
  });

  it('awaits an async main and calls another entrypoint', async () => {
    const content =
      'import asyncio\nasync def main(n):\n    await asyncio.sleep(0)\n    return n + 1\ndef preprocessor(event):\n    return event["kind"]';
    await expect(runner.run(job(content, { args: { n: 1 } }), () => {})).resolves.toBe(2);
    await expect(
      runner.run(job(content, { args: { event: { kind: 'http' } }, entrypoint: 'preprocessor' }), () => {}),
    ).resolves.toBe('http');
  });

  it('turns an exception into its class name, message and the script frames of its traceback', async () => {
    const content = 'def helper():\n    raise ValueError("negative value")\n\ndef main():\n    helper()';
    const error = await failure(runner.run(job(content), () => {}));
    expect([error.name, error.message]).toEqual(['ValueError', 'negative value']);
    expect(error.jobStack).toMatch(/main\.py", line 5, in main/);
    expect(error.jobStack).not.toMatch(/<string>/);
  });

  it('passes stdout and stderr line by line, while the job runs', async () => {
    const controller = new AbortController();
    let sawLine!: () => void;
    const started = new Promise<void>((resolve) => (sawLine = resolve));
    const lines: string[] = [];
    const content =
      'import sys, time\ndef main():\n    print("first")\n    print("to stderr", file=sys.stderr)\n    time.sleep(60)';
    const running = runner.run(
      job(content),
      (line) => {
        lines.push(line);
        if (line === 'to stderr') sawLine();
      },
      { signal: controller.signal },
    );
    await started;
    expect(lines).toEqual(['first', 'to stderr']);
    controller.abort();
    expect((await failure(running)).name).toBe('Canceled');
  });

  it('kills the job and everything it started at the time limit', async () => {
    const pidFile = join(root, 'child.pid');
    const content = [
      'import subprocess',
      'def main():',
      '    child = subprocess.Popen(["sleep", "300"])',
      `    open(${JSON.stringify(pidFile)}, "w").write(str(child.pid))`,
      '    child.wait()',
    ].join('\n');
    // Long enough for Python to start and spawn its child with every core busy (the pid file must
    // exist); the limit, not the child, ends the job either way.
    const error = await failure(runner.run(job(content, { timeoutMs: 10_000 }), () => {}));
    expect([error.name, error.message]).toEqual([
      'Timeout',
      'the job did not finish within its time limit of 10 s and was stopped',
    ]);
    const pid = Number(await readFile(pidFile, 'utf8'));
    await expect
      .poll(() => existsSync(`/proc/${pid}`) && !(readProcState(pid) === 'Z'), { timeout: 30_000 })
      .toBe(false);
  });

  it('stops a job at its memory limit', async () => {
    const content =
      'def main():\n    blocks = []\n    while True:\n        blocks.append(bytearray(16 * 1024 * 1024))';
    const error = await failure(runner.run(job(content, { memoryMb: 128 }), () => {}));
    expect([error.name, error.message]).toEqual([
      'MemoryLimitExceeded',
      'the job exceeded its memory limit of 128 MiB (MemoryError)',
    ]);
  });

  it('refuses a result over the size limit or not JSON', async () => {
    const big = await failure(runner.run(job('def main():\n    return "x" * 100000'), () => {}));
    expect(big.name).toBe('ResultTooLarge');
    const notJson = await failure(runner.run(job('def main():\n    return object()'), () => {}));
    expect(notJson.name).toBe('ExecutionErr');
    expect(notJson.message).toMatch(
      /^the result is not JSON: Object of type object is not JSON serializable/,
    );
  });

  it('gives null for the non-finite floats of a result, as Windmill does', async () => {
    const content =
      'import decimal\ndef main():\n    return {"inf": float("inf"), "nan": [float("nan"), (float("-inf"),)], "d": {decimal.Decimal("Infinity")}, "ok": 1.5, "text": "NaN"}';
    await expect(runner.run(job(content), () => {})).resolves.toEqual({
      inf: null,
      nan: [null, [null]],
      d: [null],
      ok: 1.5,
      text: 'NaN',
    });
  });

  it('sees the job environment and not the worker environment', async () => {
    process.env.FLOWMESH_TEST_SECRET = 'host-only';
    const content =
      'import os\ndef main():\n    return [os.environ.get("WM_WORKSPACE"), os.environ.get("FLOWMESH_TEST_SECRET")]';
    await expect(runner.run(job(content, { env: { WM_WORKSPACE: 'acme' } }), () => {})).resolves.toEqual([
      'acme',
      null,
    ]);
  });

  it('shares ./shared between jobs of one workdirKey only', async () => {
    const write = 'def main():\n    open("shared/note.txt", "w").write("kept")\n    return 1';
    const read =
      'import os\ndef main():\n    return open("shared/note.txt").read() if os.path.exists("shared/note.txt") else None';
    await runner.run(job(write, { workdirKey: 'run-1' }), () => {});
    await expect(runner.run(job(read, { workdirKey: 'run-1' }), () => {})).resolves.toBe('kept');
    await expect(runner.run(job(read, { workdirKey: 'run-2' }), () => {})).resolves.toBeNull();
  });
});

function readProcState(pid: number): string | undefined {
  try {
    return /\) (\S)/.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1];
  } catch {
    return undefined;
  }
}
