import { chmod, chown, lchown, mkdir, mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { ScriptJob } from '../../ports/script-runner.port.js';
import type { SandboxUids, UidLease } from '../isolation/sandbox-uids.js';
import { NO_SANDBOX, type SandboxUser, type ScriptSandbox } from '../isolation/script-sandbox.js';

export interface JobWorkdir {
  readonly path: string;
  /** Who the job runs as (its own uid when the worker has a pool of them), with which network. */
  readonly sandbox: ScriptSandbox;
  /** Removes the directory; with a uid of its own, kills every process of that uid first. */
  dispose(): Promise<void>;
}

/**
 * A working directory per subprocess job, removed when it ends. Jobs with a `workdirKey` (the
 * steps of a `same_worker` flow) also see `./shared`, one directory for the whole run, as
 * Windmill's workers give them. Each belongs to the user who runs the job: a uid of its own from
 * `uids` (leased here, given back when the job's directory goes), else the sandbox's user. The
 * directories above it can be passed through, not listed, so a job cannot find another's; and a
 * run's `./shared` is root's between its jobs, so whoever gets their uid next cannot enter it.
 */
export class JobWorkdirs {
  constructor(
    private readonly root: string,
    /** Who runs the jobs in these directories, and with which network. */
    readonly sandbox: ScriptSandbox = NO_SANDBOX,
    /** A uid per concurrent job (`isolation/sandbox-uids.ts`); without it, all run as `sandbox.user`. */
    private readonly uids?: SandboxUids,
  ) {}

  private ready?: Promise<void>;
  private sharedReady?: Promise<void>;

  async create(job: ScriptJob): Promise<JobWorkdir> {
    const lease = await this.uids?.lease(job.workdirKey);
    const user = lease?.user ?? this.sandbox.user;
    const sandbox: ScriptSandbox = user ? { ...this.sandbox, user } : this.sandbox;
    let path: string | undefined;
    let shared: string | undefined;
    const remove = async (last: boolean): Promise<void> => {
      if (path) await rm(path, { recursive: true, force: true });
      // The run's directory stays, root's, for its next job (whichever uid that gets).
      if (last && shared && lease) await chown(shared, 0, 0);
    };
    try {
      const jobs = join(this.root, 'jobs');
      await this.rootReady();
      path = await mkdtemp(join(jobs, `${safeName(job.id)}-`));
      await own(path, user);
      if (job.workdirKey) {
        const sharedRoot = join(this.root, 'shared');
        await (this.sharedReady ??= this.passable([sharedRoot]));
        shared = join(sharedRoot, safeName(job.workdirKey));
        await mkdir(shared, { recursive: true, mode: 0o700 });
        // What the run's earlier jobs left belongs to their uid: the whole tree is handed over.
        if (lease && !lease.resumed) await ownTree(shared, user!);
        else await own(shared, user);
        await symlink(shared, join(path, 'shared'), 'dir');
      }
    } catch (error) {
      await release(lease, remove).catch(() => undefined);
      throw error;
    }
    return { path, sandbox, dispose: () => release(lease, remove) };
  }

  /** The thread sandbox's working directory and home, the sandbox's user's own. */
  async sandboxHome(): Promise<string> {
    await this.rootReady();
    const home = join(this.root, 'sandbox');
    await mkdir(home, { recursive: true, mode: 0o700 });
    await own(home, this.sandbox.user);
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
}

/** Directories are made by the worker and handed to the user who runs the job. */
async function own(path: string, user: SandboxUser | undefined): Promise<void> {
  if (user) await chown(path, user.uid, user.gid);
}

/** `path` and everything in it (links themselves, not what they point to) handed to `user`. */
async function ownTree(path: string, user: SandboxUser): Promise<void> {
  await lchown(path, user.uid, user.gid);
  for (const entry of await readdir(path, { withFileTypes: true, recursive: true }))
    await lchown(join(entry.parentPath, entry.name), user.uid, user.gid);
}

/** Gives the job's uid back (its processes killed first), removing the directory; or just removes it. */
function release(lease: UidLease | undefined, remove: (last: boolean) => Promise<void>): Promise<void> {
  return lease ? lease.release(remove) : remove(true);
}

/** Ids become directory names: nothing that could climb out of the root. */
function safeName(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 120) || 'job';
}
