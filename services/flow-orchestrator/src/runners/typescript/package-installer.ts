import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { npmEnvironment } from '@flowmesh/bootstrap';
import {
  MeshError,
  type LockerClient,
  type TypescriptLock,
  type TypescriptRequirements,
} from '@flowmesh/contracts';
import { JobError } from '../../ports/script-runner.port.js';
import { PACKAGES_LOADER, type JobPackages } from './import-specifier.util.js';

/** Written last into an installed directory: a directory without it is not used. */
const READY = '.flowmesh-ready';

export interface PackageInstallerOptions {
  /** Where locks are installed, a directory per lock hash. */
  readonly cacheDir: string;
  /** The npm executable. */
  readonly npm: string;
  /** The registry tarballs come from when a lock names no host (npm's configured one otherwise). */
  readonly registry?: string;
  readonly timeoutMs: number;
  /** How long a lock is used before dependency-locker is asked again (it may have refreshed it). */
  readonly lockCacheMs: number;
}

/**
 * Installs the packages scripts import: their requirements are locked by dependency-locker (the
 * same lock for the same requirements, on every worker), and each lock is installed once per
 * worker, with `npm ci --ignore-scripts` (no package script runs), into a directory named by the
 * lock's hash. Installing into a staging directory renamed at the end, so a directory in the cache
 * is always whole; concurrent jobs needing one lock wait for one install.
 */
export class PackageInstaller {
  private readonly installed = new Map<
    string,
    { readonly at: number; readonly packages: Promise<JobPackages> }
  >();

  constructor(
    private readonly options: PackageInstallerOptions,
    private readonly locker: LockerClient,
  ) {}

  /**
   * The packages of these requirements on this worker: their lock is asked of dependency-locker at
   * most every `lockCacheMs` (it may have resolved floating ranges again), and a lock not installed
   * yet is installed, `log` (the job's log) hearing of it.
   */
  packagesFor(
    requirements: TypescriptRequirements,
    log: (line: string) => void = () => undefined,
    stored?: TypescriptLock,
  ): Promise<JobPackages> {
    if (stored && Object.keys(requirements).every((name) => name in stored.requirements))
      return this.fromStoredLock(stored, Object.keys(requirements), log);
    const key = JSON.stringify(Object.entries(requirements).sort(([a], [b]) => a.localeCompare(b)));
    const kept = this.installed.get(key);
    if (kept && Date.now() - kept.at < this.options.lockCacheMs) return kept.packages;
    const packages = this.lockAndInstall(requirements, log);
    this.installed.set(key, { at: Date.now(), packages });
    // A failure is not kept: the next job tries again.
    packages.catch(() => {
      if (this.installed.get(key)?.packages === packages) this.installed.delete(key);
    });
    return packages;
  }

  /**
   * The lock dependency-locker wrote into the script (or step, or tool) when it was deployed: it
   * is installed as it is, nobody is asked, so a run never resolves at job time. A lock that does
   * not cover what the script imports (the code changed since) is not used.
   */
  private fromStoredLock(
    lock: TypescriptLock,
    names: string[],
    log: (line: string) => void,
  ): Promise<JobPackages> {
    const key = `lock:${lock.hash}`;
    const kept = this.installed.get(key);
    if (kept) return kept.packages.then((p) => ({ ...p, names }));
    const packages = this.installOnce(lock, Object.keys(lock.requirements), log);
    this.installed.set(key, { at: Date.now(), packages });
    packages.catch(() => {
      if (this.installed.get(key)?.packages === packages) this.installed.delete(key);
    });
    return packages.then((p) => ({ ...p, names }));
  }

  private async lockAndInstall(
    requirements: TypescriptRequirements,
    log: (line: string) => void,
  ): Promise<JobPackages> {
    const names = Object.keys(requirements);
    let lock: TypescriptLock;
    try {
      lock = (await this.locker.lockTypescript({ requirements })).lock;
    } catch (error) {
      const message = error instanceof MeshError ? error.message : String(error);
      const why =
        error instanceof MeshError && (error.code === 'UNAVAILABLE' || error.code === 'TIMEOUT')
          ? `no dependency-locker could lock them (${message})`
          : message;
      throw new JobError(
        'ImportError',
        `the packages the script imports (${names.join(', ')}) could not be locked: ${why}`,
      );
    }
    return this.installOnce(lock, names, log);
  }

  private async installOnce(
    lock: TypescriptLock,
    names: string[],
    log: (line: string) => void,
  ): Promise<JobPackages> {
    const dir = join(this.options.cacheDir, lock.hash);
    if (!existsSync(join(dir, READY))) {
      const requirements = lock.requirements;
      const wanted = Object.entries(requirements)
        .map(([name, range]) => `${name}@${range}`)
        .join(', ');
      log(
        `flowmesh: installing the npm packages this script imports (${wanted}), lock ${lock.hash.slice(0, 12)}`,
      );
      const started = Date.now();
      await this.install(lock, dir);
      log(`flowmesh: npm packages installed in ${Date.now() - started} ms`);
    }
    return { dir, names };
  }

  private async install(lock: TypescriptLock, dir: string): Promise<void> {
    const staging = `${dir}.${process.pid}.${randomUUID().slice(0, 8)}`;
    await mkdir(staging, { recursive: true });
    try {
      const manifest = {
        name: 'flowmesh-script',
        version: '0.0.0',
        private: true,
        dependencies: lock.requirements,
      };
      await writeFile(join(staging, 'package.json'), JSON.stringify(manifest));
      await writeFile(join(staging, 'package-lock.json'), JSON.stringify(lock.lockfile));
      await this.npmCi(staging, Object.keys(lock.requirements));
      await writeFile(join(staging, PACKAGES_LOADER), 'export default (specifier) => import(specifier);\n');
      await writeFile(join(staging, READY), '');
      await rename(staging, dir).catch((error: unknown) => {
        // Another worker of this machine installed it first: theirs is as good.
        if (!existsSync(join(dir, READY))) throw error;
      });
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  }

  private npmCi(cwd: string, names: readonly string[]): Promise<void> {
    const env = npmEnvironment();
    const args = [
      'ci',
      '--ignore-scripts',
      '--omit=dev',
      '--no-audit',
      '--no-fund',
      '--no-update-notifier',
      '--loglevel=error',
      ...(this.options.registry ? [`--registry=${this.options.registry}`] : []),
    ];
    return new Promise((resolve, reject) => {
      execFile(
        this.options.npm,
        args,
        { cwd, env, timeout: this.options.timeoutMs, maxBuffer: 4 << 20, windowsHide: true },
        (error, _stdout, stderr) => {
          if (!error) return resolve();
          const detail = String(stderr)
            .split('\n')
            .filter((line) => line.startsWith('npm error') && !line.includes('complete log'))
            .slice(0, 3)
            .join(' ');
          reject(
            new JobError(
              'ImportError',
              `installing the packages the script imports (${names.join(', ')}) failed: ${error.killed ? `npm took over ${this.options.timeoutMs} ms` : detail || error.message}`,
            ),
          );
        },
      );
    });
  }
}
