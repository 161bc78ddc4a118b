import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PythonLock } from '@flowmesh/contracts';
import { JobError } from '../../ports/script-runner.port.js';

/** Written last into an installed directory: a directory without it is not used. */
const READY = '.flowmesh-ready';

export interface PythonPackagesOptions {
  /** Where locks are installed, a directory per lock. */
  readonly cacheDir: string;
  /** The interpreter whose pip installs them (the one jobs run). */
  readonly python: string;
  /** The package index (`--index-url`, `file://` works); pip's own default otherwise. */
  readonly indexUrl?: string;
  readonly timeoutMs: number;
}

/**
 * Installs the packages a python3 script's lock pins (dependency-locker wrote it on deploy: every
 * distribution of the tree at an exact version) into a directory per lock shared by every job of
 * this worker, which the job gets on its `PYTHONPATH`. `pip install --no-deps` of exactly those
 * pins: nothing is resolved at job time. pip runs `--isolated` (no user config, no `PIP_*`
 * variables), into a staging directory renamed at the end, so a directory in the cache is whole;
 * concurrent jobs needing one lock wait for one install.
 */
export class PythonPackages {
  private readonly installing = new Map<string, Promise<string>>();

  constructor(private readonly options: PythonPackagesOptions) {}

  /** The directory holding this lock's packages, installed first if it is not yet. */
  dirFor(lock: PythonLock, log: (line: string) => void): Promise<string> {
    const pins = Object.entries(lock.pins)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, version]) => `${name}==${version}`);
    const dir = join(this.options.cacheDir, createHash('sha256').update(pins.join('\n')).digest('hex'));
    if (existsSync(join(dir, READY))) return Promise.resolve(dir);
    let install = this.installing.get(dir);
    if (!install) {
      install = this.install(pins, dir, log).finally(() => this.installing.delete(dir));
      this.installing.set(dir, install);
    }
    return install;
  }

  private async install(pins: readonly string[], dir: string, log: (line: string) => void): Promise<string> {
    log(`flowmesh: installing the python packages this script's lock pins (${pins.join(', ')})`);
    const started = Date.now();
    const staging = `${dir}.${process.pid}.${randomUUID().slice(0, 8)}`;
    await mkdir(staging, { recursive: true });
    try {
      await this.pip(pins, staging);
      await writeFile(join(staging, READY), '');
      await rename(staging, dir).catch((error: unknown) => {
        // Another worker of this machine installed it first: theirs is as good.
        if (!existsSync(join(dir, READY))) throw error;
      });
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
    log(`flowmesh: python packages installed in ${Date.now() - started} ms`);
    return dir;
  }

  private pip(pins: readonly string[], target: string): Promise<void> {
    const args = [
      '-m',
      'pip',
      '--isolated',
      '--disable-pip-version-check',
      '--no-input',
      'install',
      '--no-deps',
      '--no-compile',
      '--only-binary=:all:',
      '--target',
      target,
      ...(this.options.indexUrl ? ['--index-url', this.options.indexUrl] : []),
      '--',
      ...pins,
    ];
    return new Promise((resolve, reject) => {
      execFile(
        this.options.python,
        args,
        {
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' },
          timeout: this.options.timeoutMs,
          maxBuffer: 4 << 20,
          windowsHide: true,
        },
        (error, _stdout, stderr) => {
          if (!error) return resolve();
          const detail = String(stderr)
            .split('\n')
            .filter((line) => line.startsWith('ERROR:'))
            .slice(0, 3)
            .join(' ');
          reject(
            new JobError(
              'ImportError',
              `installing the python packages the script's lock pins (${pins.join(', ')}) failed: ${error.killed ? `pip took over ${this.options.timeoutMs} ms` : detail || error.message}`,
            ),
          );
        },
      );
    });
  }
}
