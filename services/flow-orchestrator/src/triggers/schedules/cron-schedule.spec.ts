import { describe, expect, it } from 'vitest';
import { CronSchedule } from './cron-schedule.js';

describe('CronSchedule', () => {
  it('reads Windmill cron with seconds first, in a timezone', () => {
    const nightly = CronSchedule.of('0 0 2 * * *', 'Europe/Paris');
    expect(nightly.nextAfter(new Date('2026-12-07T10:00:00Z'))?.toISOString()).toBe(
      '2026-12-08T01:00:00.000Z',
    );
    const everyFive = CronSchedule.of('*/5 * * * * *', 'UTC');
    expect(everyFive.upcoming(2, new Date('2026-12-07T10:00:05Z')).map((d) => d.toISOString())).toEqual([
      '2026-12-07T10:00:10.000Z',
      '2026-12-07T10:00:15.000Z',
    ]);
  });

  it('names the field of each problem', () => {
    expect(CronSchedule.parse('61 * * * * *', 'UTC')).toEqual([
      { path: 'schedule', message: expect.stringContaining('second') as string },
    ]);
    expect(CronSchedule.parse('0 * * * * *', 'Mars/Olympus')).toEqual([
      { path: 'timezone', message: expect.stringContaining('Mars/Olympus') as string },
    ]);
    expect(CronSchedule.parse('0 0 0 30 2 *', 'UTC')).toEqual([
      { path: 'schedule', message: expect.stringContaining('never fires') as string },
    ]);
  });
});
