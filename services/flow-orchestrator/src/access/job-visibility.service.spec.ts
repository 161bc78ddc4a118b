import type { CallerIdentity, Job, JobSummary, ScopeDomain } from '@flowmesh/contracts';
import { describe, expect, it } from 'vitest';
import type { Caller } from '../http/caller.js';
import type { JobQueries } from '../jobs/job-queries.js';
import { JobVisibility } from './job-visibility.service.js';
import type { RegistryAccess } from './registry-access.js';

const job = (fields: Partial<Job>): Job =>
  ({ id: 'j1', workspace: 'main', path: null, created_by: 'alice', ...fields }) as Job;

const caller = (identity: Partial<CallerIdentity>): Caller => ({
  identity: {
    workspace: 'main',
    kind: 'user',
    username: 'bob',
    email: '',
    isAdmin: false,
    groups: ['all'],
    ...identity,
  },
  actor: { token: 't' },
});

/** Bob may read paths under f/team/ only. */
function visibility(stored: Job | undefined) {
  const asked: string[] = [];
  const jobs = { find: () => Promise.resolve(stored) } as unknown as JobQueries;
  const access = {
    allowed: (_caller: Caller, path: string, action: 'read' | 'write', domain: ScopeDomain) => {
      asked.push(`${action} ${domain} ${path}`);
      return Promise.resolve(path.startsWith('f/team/') && action === 'read');
    },
  } as unknown as RegistryAccess;
  return { visibility: new JobVisibility(jobs, access), asked };
}

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  return promise.then(
    () => undefined,
    (error: { code?: string }) => error.code,
  );
}

describe('JobVisibility', () => {
  it('shows a job to its creator and to an admin, without asking the registry', async () => {
    const { visibility: v, asked } = visibility(job({ created_by: 'bob' }));
    expect((await v.readable(caller({}), 'j1')).id).toBe('j1');
    expect((await v.readable(caller({ username: 'root', isAdmin: true }), 'j1')).id).toBe('j1');
    expect(asked).toEqual([]);
  });

  it('shows a job of a path to whoever may read the path, and nothing else: NOT_FOUND as for no job', async () => {
    expect(
      await codeOf(visibility(job({ path: 'f/team/flow' })).visibility.readable(caller({}), 'j1')),
    ).toBeUndefined();
    expect(
      await codeOf(visibility(job({ path: 'f/secret/flow' })).visibility.readable(caller({}), 'j1')),
    ).toBe('NOT_FOUND');
    expect(await codeOf(visibility(job({})).visibility.readable(caller({}), 'j1'))).toBe('NOT_FOUND');
    expect(await codeOf(visibility(undefined).visibility.readable(caller({}), 'j1'))).toBe('NOT_FOUND');
    expect(
      await codeOf(
        visibility(job({ workspace: 'other', created_by: 'bob' })).visibility.readable(caller({}), 'j1'),
      ),
    ).toBe('NOT_FOUND');
  });

  it('asks a scoped token for a jobs scope covering the path', async () => {
    const mine = job({ created_by: 'bob', path: 'f/team/flow' });
    expect(await codeOf(visibility(mine).visibility.readable(caller({ scopes: ['flows:read'] }), 'j1'))).toBe(
      'NOT_FOUND',
    );
    expect(
      await codeOf(visibility(mine).visibility.readable(caller({ scopes: ['jobs:read:f/team/*'] }), 'j1')),
    ).toBeUndefined();
  });

  it('lets readers see but not cancel: PERMISSION_DENIED for a reader, allowed for the creator', async () => {
    expect(await codeOf(visibility(job({ path: 'f/team/flow' })).visibility.writable(caller({}), 'j1'))).toBe(
      'PERMISSION_DENIED',
    );
    expect(
      await codeOf(visibility(job({ created_by: 'bob' })).visibility.writable(caller({}), 'j1')),
    ).toBeUndefined();
  });

  it('filters a list, asking the registry once per distinct path', async () => {
    const { visibility: v, asked } = visibility(undefined);
    const summaries = [
      job({ id: 'a', created_by: 'bob' }),
      job({ id: 'b', path: 'f/team/x' }),
      job({ id: 'c', path: 'f/team/x' }),
      job({ id: 'd', path: 'f/secret/y' }),
      job({ id: 'e' }),
    ] as unknown as JobSummary[];
    expect((await v.filterReadable(caller({}), summaries)).map((j) => j.id)).toEqual(['a', 'b', 'c']);
    expect(asked).toEqual(['read jobs f/team/x', 'read jobs f/secret/y']);
  });
});
