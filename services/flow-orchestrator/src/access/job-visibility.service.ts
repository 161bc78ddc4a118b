import { MeshError, scopesAllow, type Job, type JobSummary } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import type { Caller } from '../http/caller.js';
import { JobQueries } from '../jobs/job-queries.js';
import { RegistryAccess } from './registry-access.js';

type JobFacts = Pick<Job, 'id' | 'workspace' | 'path' | 'created_by'>;

/**
 * Who may see a job: an admin of its workspace, whoever started it, and whoever may read the
 * flow or script it runs (folder and user paths, as the registry decides); a scoped token also
 * needs a `jobs` scope for that path. A job the caller may not see answers exactly as one that
 * does not exist, so ids of others' jobs reveal nothing.
 */
@Injectable()
export class JobVisibility {
  constructor(
    private readonly jobs: JobQueries,
    private readonly access: RegistryAccess,
  ) {}

  /** The job, or NOT_FOUND when it does not exist or the caller may not read it. */
  async readable(caller: Caller, id: string): Promise<Job> {
    const job = await this.jobs.find(caller.identity.workspace, id);
    if (!job || !(await this.mayRead(caller, job))) throw jobNotFound(id);
    return job;
  }

  /** The job when the caller may act on it (cancel): its creator, an admin or a writer of its path. */
  async writable(caller: Caller, id: string): Promise<Job> {
    const job = await this.readable(caller, id);
    if (await this.may(caller, job, 'write')) return job;
    throw new MeshError(
      'PERMISSION_DENIED',
      `the caller may not act on job ${id}: only its creator, an admin or a writer of ${job.path ?? 'its path'} may`,
      {
        id,
      },
    );
  }

  /** The jobs among `jobs` the caller may read, asking the registry once per distinct path. */
  async filterReadable<T extends JobSummary>(caller: Caller, jobs: readonly T[]): Promise<T[]> {
    const byPath = new Map<string, Promise<boolean>>();
    const answers = await Promise.all(
      jobs.map((job): Promise<boolean> => {
        if (job.workspace !== caller.identity.workspace || !this.scopeAllows(caller, job, 'read')) {
          return Promise.resolve(false);
        }
        if (this.ownsOrAdmin(caller, job)) return Promise.resolve(true);
        if (job.path === null) return Promise.resolve(false);
        let answer = byPath.get(job.path);
        if (!answer) {
          answer = this.access.allowed(caller, job.path, 'read', 'jobs');
          byPath.set(job.path, answer);
        }
        return answer;
      }),
    );
    return jobs.filter((_, index) => answers[index]);
  }

  private mayRead(caller: Caller, job: JobFacts): Promise<boolean> {
    return this.may(caller, job, 'read');
  }

  private async may(caller: Caller, job: JobFacts, action: 'read' | 'write'): Promise<boolean> {
    if (job.workspace !== caller.identity.workspace || !this.scopeAllows(caller, job, action)) return false;
    if (this.ownsOrAdmin(caller, job)) return true;
    return job.path !== null && this.access.allowed(caller, job.path, action, 'jobs');
  }

  private scopeAllows(caller: Caller, job: JobFacts, action: 'read' | 'write'): boolean {
    return scopesAllow(caller.identity.scopes, {
      domain: 'jobs',
      action,
      ...(job.path === null ? {} : { path: job.path }),
    });
  }

  private ownsOrAdmin(caller: Caller, job: JobFacts): boolean {
    return caller.identity.isAdmin || job.created_by === caller.identity.username;
  }
}

export function jobNotFound(id: string): MeshError {
  return new MeshError('NOT_FOUND', `job ${id} not found`, { id });
}
