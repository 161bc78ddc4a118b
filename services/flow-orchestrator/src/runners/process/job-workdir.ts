import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { ScriptJob } from '../../ports/script-runner.port.js';

export interface JobWorkdir {
  readonly path: string;
  dispose(): Promise<void>;
}

/**
 * A working directory per subprocess job, removed when it ends. Jobs with a `workdirKey` (the
 * steps of a `same_worker` flow) also see `./shared`, one directory for the whole run, as
 * Windmill's workers give them.
 */
export class JobWorkdirs {
  constructor(private readonly root: string) {}

  async create(job: ScriptJob): Promise<JobWorkdir> {
    const jobs = join(this.root, 'jobs');
    await mkdir(jobs, { recursive: true, mode: 0o700 });
    const path = await mkdtemp(join(jobs, `${safeName(job.id)}-`));
    if (job.workdirKey) {
      const shared = join(this.root, 'shared', safeName(job.workdirKey));
      await mkdir(shared, { recursive: true, mode: 0o700 });
      await symlink(shared, join(path, 'shared'), 'dir');
    }
    return { path, dispose: () => rm(path, { recursive: true, force: true }) };
  }
}

/** Ids become directory names: nothing that could climb out of the root. */
function safeName(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 120) || 'job';
}
