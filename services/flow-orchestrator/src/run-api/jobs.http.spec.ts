import { describe, expect, it } from 'vitest';
import { ListJobsQuerySchema } from './jobs.http.js';

describe('ListJobsQuerySchema', () => {
  it("maps Windmill's filter names onto the engine's", () => {
    expect(
      ListJobsQuerySchema.parse({
        created_by: 'bob',
        script_path_exact: 'f/team/x',
        script_path_start: 'f/team/',
        success: 'false',
        job_kinds: 'flow, script',
        tag: 'gpu',
        per_page: '20',
        page: '3',
      }),
    ).toEqual({
      created_by: 'bob',
      path: 'f/team/x',
      path_prefix: 'f/team/',
      success: false,
      kind: ['flow', 'script'],
      tag: 'gpu',
      include_children: false,
      limit: 20,
      offset: 40,
    });
  });

  it('reads running and suspended as statuses, and a parent as a request for children', () => {
    expect(ListJobsQuerySchema.parse({ running: 'true' })).toMatchObject({
      status: ['running', 'suspended'],
    });
    expect(ListJobsQuerySchema.parse({ running: 'false' })).toMatchObject({ status: ['queued'] });
    expect(ListJobsQuerySchema.parse({ suspended: 'true' })).toMatchObject({ status: ['suspended'] });
    const parent = '0193f0c2-7a65-7000-8000-000000000001';
    expect(ListJobsQuerySchema.parse({ parent_job: parent })).toMatchObject({
      parent_job: parent,
      include_children: true,
    });
    expect(ListJobsQuerySchema.parse({})).toEqual({ include_children: false, limit: 100, offset: 0 });
  });

  it('refuses values it cannot read', () => {
    expect(ListJobsQuerySchema.safeParse({ success: 'maybe' }).success).toBe(false);
    expect(ListJobsQuerySchema.safeParse({ job_kinds: 'flow,nope' }).success).toBe(false);
    expect(ListJobsQuerySchema.safeParse({ per_page: '0' }).success).toBe(false);
  });
});
