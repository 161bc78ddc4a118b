import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobWorkdirs } from '../process/job-workdir.js';
import { jobFailure as failure, scriptJobs } from '../script-job.fixture.js';
import { BashRunner } from './bash.runner.js';

const job = scriptJobs('bash');

let root: string;
let runner: BashRunner;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'bash-runner-'));
  runner = new BashRunner(
    { executable: 'bash', path: process.env.PATH ?? '/usr/bin:/bin', maxResultBytes: 1024 },
    new JobWorkdirs(root),
  );
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('BashRunner', () => {
  it('passes arguments as positional values in the order the script declares them', async () => {
    const content = [
      'greeting="$2"',
      'name="$1"',
      'count="${3:-1}"',
      'data="$4"',
      'echo "starting"',
      'echo "$greeting $name x$count $data"',
    ].join('\n');
    await expect(
      runner.run(
        job(content, { args: { greeting: 'hello', name: 'world', data: { a: [1] }, unused: 'z' } }),
        () => {},
      ),
    ).resolves.toBe('hello world x1 {"a":[1]}');
  });

  it('keeps a hostile argument a plain value', async () => {
    const content = 'name="$1"\necho "got: $name"';
    await expect(
      runner.run(job(content, { args: { name: '$(echo pwned); `id` && rm -rf /' } }), () => {}),
    ).resolves.toBe('got: $(echo pwned); `id` && rm -rf /');
  });

  it('returns ./result.json when the script writes one, null when it prints nothing', async () => {
    await expect(
      runner.run(job('echo noise\necho \'{"ok": true}\' > result.json'), () => {}),
    ).resolves.toEqual({ ok: true });
    await expect(runner.run(job('true'), () => {})).resolves.toBeNull();
  });

  it('fails with the exit code and the last lines when the script exits non-zero', async () => {
    const error = await failure(runner.run(job('echo "about to fail"\nexit 3'), () => {}));
    expect([error.name, error.message]).toEqual([
      'ExecutionErr',
      'bash exited with code 3; last lines:\nabout to fail',
    ]);
  });

  it('passes output line by line as it is written', async () => {
    const controller = new AbortController();
    let sawLine!: () => void;
    const started = new Promise<void>((resolve) => (sawLine = resolve));
    const running = runner.run(
      job('echo first\necho oops >&2\nsleep 60'),
      (line) => line === 'oops' && sawLine(),
      {
        signal: controller.signal,
      },
    );
    await started;
    controller.abort();
    expect((await failure(running)).name).toBe('Canceled');
  });

  it('stops the script and its background children at the time limit', async () => {
    const started = Date.now();
    const error = await failure(runner.run(job('sleep 300 &\nsleep 300', { timeoutMs: 500 }), () => {}));
    expect(error.name).toBe('Timeout');
    // Not held until the background sleep ends (300 s): a bound against that, not a deadline.
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('stops a script at its memory limit', async () => {
    const content = 'big=$(head -c 200000000 /dev/zero | tr "\\0" a)\necho "${#big}"';
    const error = await failure(runner.run(job(content, { memoryMb: 64 }), () => {}));
    expect(error.name).toBe('MemoryLimitExceeded');
  });

  it('refuses a result over the size limit', async () => {
    const error = await failure(runner.run(job('head -c 5000 /dev/zero | tr "\\0" a; echo'), () => {}));
    expect(error.name).toBe('ResultTooLarge');
  });

  it('sees the job environment and not the worker environment', async () => {
    process.env.FLOWMESH_TEST_SECRET = 'host-only';
    await expect(
      runner.run(
        job('echo "$APP_MODE/${FLOWMESH_TEST_SECRET:-none}"', { env: { APP_MODE: 'staging' } }),
        () => {},
      ),
    ).resolves.toBe('staging/none');
  });
});
