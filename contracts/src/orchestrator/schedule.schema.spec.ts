import { describe, expect, it } from 'vitest';
import {
  CreateScheduleRequestSchema,
  EditScheduleSchema,
  HandlerPathSchema,
  NewScheduleSchema,
  PreviewScheduleSchema,
} from './schedule.schema.js';
import { orchestratorSchedulesContract } from './schedules.contract.js';

const issuesOf = (result: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }) =>
  (result.error?.issues ?? []).map((issue) => issue.path.join('.'));

const minimal = {
  path: 'f/ops/nightly',
  schedule: '0 0 2 * * *',
  timezone: 'Europe/Paris',
  script_path: 'f/ops/report',
  is_flow: true,
};

describe('schedule contracts', () => {
  it('reads a Windmill NewSchedule, nulls included, and ignores fields it does not know over HTTP', () => {
    const parsed = NewScheduleSchema.parse({
      ...minimal,
      args: null,
      on_failure: null,
      on_recovery_times: null,
      paused_until: null,
      extra_perms: {},
    });
    expect(parsed).toMatchObject(minimal);
    expect('extra_perms' in parsed).toBe(false);
  });

  it('names the field of every problem', () => {
    const result = NewScheduleSchema.safeParse({
      ...minimal,
      path: 'nightly',
      schedule: '* *',
      on_failure: 'script/nowhere',
      on_failure_times: 0,
      paused_until: 'tomorrow',
      tag: 'Not A Tag',
    });
    expect(issuesOf(result).sort()).toEqual(
      ['on_failure', 'on_failure_times', 'path', 'paused_until', 'schedule', 'tag'].sort(),
    );
  });

  it('takes handler paths as Windmill prefixes them, and bare item paths as scripts', () => {
    for (const ok of ['script/f/ops/alert', 'flow/u/alice/recover', 'f/ops/alert'])
      expect(HandlerPathSchema.safeParse(ok).success).toBe(true);
    for (const bad of ['script/', 'flow/x', 'app/f/ops/x', ''])
      expect(HandlerPathSchema.safeParse(bad).success).toBe(false);
  });

  it('keeps the target out of an edit, as Windmill does', () => {
    expect(Object.keys(EditScheduleSchema.shape)).not.toContain('script_path');
    expect(Object.keys(EditScheduleSchema.shape)).not.toContain('is_flow');
  });

  it('needs actor and workspace on every request, and refuses unknown fields there', () => {
    expect(
      CreateScheduleRequestSchema.safeParse({ ...minimal, actor: { token: 't' }, workspace: 'main' }).success,
    ).toBe(true);
    expect(issuesOf(CreateScheduleRequestSchema.safeParse(minimal)).sort()).toEqual(['actor', 'workspace']);
    expect(
      CreateScheduleRequestSchema.safeParse({ ...minimal, actor: { token: 't' }, workspace: 'main', x: 1 })
        .success,
    ).toBe(false);
    for (const contract of Object.values(orchestratorSchedulesContract))
      expect(contract.subject).toMatch(/^orchestrator\.schedule\.[a-z_]+$/);
  });

  it('bounds a preview', () => {
    expect(
      PreviewScheduleSchema.safeParse({ schedule: '* * * * * *', timezone: 'UTC', count: 51 }).success,
    ).toBe(false);
  });
});
