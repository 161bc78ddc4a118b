import { chmod, chown, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { ScriptJob } from '../../ports/script-runner.port.js';
import { NO_SANDBOX, type ScriptSandbox } from '../isolation/script-sandbox.js';

export interface JobWorkdir {
  readonly path: string;
  dispose(): Promise<void>;
}

/**
 * A working directory per subprocess job, removed when it ends. Jobs with a `workdirKey` (the
 * steps of a `same_worker` flow) also see `./shared`, one directory for the whole run, as
 * Windmill's workers give them. Each belongs to the sandbox's user, who runs the job; the
 * directories above it can be passed through, not listed, so a job cannot find another's.
 */
export class JobWorkdirs {
  constructor(
    private readonly root: string,
    /** Who runs the jobs in these directories, and with which network. */
    readonly sandbox: ScriptSandbox = NO_SANDBOX,
  ) {}

  private ready?: Promise<void>;
  private sharedReady?: Promise<void>;

  async create(job: ScriptJob): Promise<JobWorkdir> {
    const jobs = join(this.root, 'jobs');
    await this.rootReady();
    const path = await mkdtemp(join(jobs, `${safeName(job.id)}-`));
    await this.own(path);
    if (job.workdirKey) {
      const sharedRoot = join(this.root, 'shared');
      await (this.sharedReady ??= this.passable([sharedRoot]));
      const shared = join(sharedRoot, safeName(job.workdirKey));
      await mkdir(shared, { recursive: true, mode: 0o700 });
      await this.own(shared);
      await symlink(shared, join(path, 'shared'), 'dir');
    }
    return { path, dispose: () => rm(path, { recursive: true, force: true }) };
  }

  /** The thread sandbox's working directory and home, the sandbox's user's own. */
  async sandboxHome(): Promise<string> {
    await this.rootReady();
    const home = join(this.root, 'sandbox');
    await mkdir(home, { recursive: true, mode: 0o700 });
    await this.own(home);
    return home;
  }

  /** The root and its `jobs`, made passable once per process. */
  private rootReady(): Promise<void> {
    return (this.ready ??= this.passable([this.root, join(this.root, 'jobs')]));
  }

  /** Made (or, left by an older worker, set) passable but not listable: `rwx--x--x`. */
  private async passable(dirs: readonly string[]): Promise<void> {
    for (const dir of dirs) {
      await mkdir(dir, { recursive: true, mode: 0o711 });
      await chmod(dir, 0o711);
    }
  }

  /** Directories are made by the worker and handed to the sandbox's user. */
  private async own(path: string): Promise<void> {
    const { user } = this.sandbox;
    if (user) await chown(path, user.uid, user.gid);
  }
}

/** Ids become directory names: nothing that could climb out of the root. */
function safeName(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 120) || 'job';
}
