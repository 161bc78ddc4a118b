import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pythonLockText } from '@flowmesh/contracts';
import { buildPythonIndex, pipAvailable } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobWorkdirs } from '../process/job-workdir.js';
import { jobFailure as failure, scriptJobs } from '../script-job.fixture.js';
import { PythonPackages } from './python-packages.js';
import { PythonRunner } from './python.runner.js';

const job = scriptJobs('python3');
const content = [
  'import fmtest_py, fmtest_dep',
  'def main():',
  '    return [fmtest_py.__version__, fmtest_dep.__version__]',
].join('\n');

// A python3 job installs what its lock pins from a file:// index of wheels built here (offline),
// once per lock into a directory every job shares, and never resolves anything itself.
describe.skipIf(!pipAvailable)('PythonRunner: packages from the lock', () => {
  let root: string;
  let cacheDir: string;
  let index: ReturnType<typeof buildPythonIndex>;
  let runner: PythonRunner;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'python-packages-'));
    cacheDir = join(root, 'packages');
    index = buildPythonIndex({
      'fmtest-py': { '1.0.0': [], '1.1.0': ['fmtest-dep>=2'] },
      'fmtest-dep': { '2.0.0': [], '2.5.0': [] },
    });
    runner = new PythonRunner(
      {
        executable: 'python3',
        path: process.env.PATH ?? '/usr/bin:/bin',
        maxResultBytes: 64 * 1024,
        packages: new PythonPackages({
          cacheDir,
          python: 'python3',
          indexUrl: index.url,
          timeoutMs: 120_000,
        }),
      },
      new JobWorkdirs(join(root, 'jobs')),
    );
  }, 120_000);

  afterAll(async () => {
    index?.remove();
    await rm(root, { recursive: true, force: true });
  });

  it('installs the pinned versions once, not the newest, and the job imports them', async () => {
    // Not the newest fmtest-dep (2.5.0): the lock's pin is what is installed.
    const lock = pythonLockText({ python: '3.11', pins: { 'fmtest-py': '1.1.0', 'fmtest-dep': '2.0.0' } });
    const logs: string[] = [];
    await expect(runner.run(job(content, { lock }), (line) => logs.push(line))).resolves.toEqual([
      '1.1.0',
      '2.0.0',
    ]);
    expect(logs[0]).toBe(
      "flowmesh: installing the python packages this script's lock pins (fmtest-dep==2.0.0, fmtest-py==1.1.0)",
    );
    expect(logs[1]).toMatch(/^flowmesh: python packages installed in \d+ ms$/);
    expect(await readdir(cacheDir)).toHaveLength(1);

    // Again, and concurrently: the same directory, nothing installed.
    const again: string[] = [];
    const runs = await Promise.all(
      [1, 2].map(() => runner.run(job(content, { lock }), (line) => again.push(line))),
    );
    expect(runs).toEqual([
      ['1.1.0', '2.0.0'],
      ['1.1.0', '2.0.0'],
    ]);
    expect(again.filter((line) => line.startsWith('flowmesh:'))).toEqual([]);
    expect(await readdir(cacheDir)).toHaveLength(1);
  }, 120_000);

  it('without a lock nothing is resolved; a pin the index lacks fails before the script runs', async () => {
    const unlocked = await failure(runner.run(job(content), () => {}));
    expect(unlocked.name).toBe('ModuleNotFoundError');

    const missing = await failure(
      runner.run(job(content, { lock: pythonLockText({ pins: { 'fmtest-py': '9.9.9' } }) }), () => {}),
    );
    expect(missing.name).toBe('ImportError');
    expect(missing.message).toContain('fmtest-py==9.9.9');
  }, 120_000);
});
