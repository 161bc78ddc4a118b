import { Cron } from 'croner';

/** A problem with a schedule's cron or timezone, naming the field as the 400 does. */
export interface CronProblem {
  readonly path: 'schedule' | 'timezone';
  readonly message: string;
}

/**
 * A cron expression in a timezone, read by croner (the syntax Windmill v2 uses: seconds first
 * when there are 6 fields, a year as a 7th). Croner only computes times here: it starts no
 * timer, the ticker decides when to fire.
 */
export class CronSchedule {
  private constructor(private readonly cron: Cron) {}

  /** The schedule, or the problems with its cron and timezone. */
  static parse(expression: string, timezone: string): CronSchedule | CronProblem[] {
    const problems: CronProblem[] = [];
    if (!isTimezone(timezone))
      problems.push({
        path: 'timezone',
        message: `"${timezone}" is not an IANA timezone (e.g. Europe/Paris, UTC)`,
      });
    let cron: Cron | undefined;
    try {
      cron = new Cron(expression.trim(), problems.length === 0 ? { timezone } : {});
    } catch (error) {
      problems.push({ path: 'schedule', message: `invalid cron expression: ${messageOf(error)}` });
    }
    if (problems.length > 0 || !cron) return problems;
    try {
      if (cron.nextRun(new Date()) === null)
        return [{ path: 'schedule', message: `the cron expression "${expression}" never fires` }];
    } catch (error) {
      return [{ path: 'timezone', message: messageOf(error) }];
    }
    return new CronSchedule(cron);
  }

  /** Like `parse`, for a schedule already checked when it was saved. */
  static of(expression: string, timezone: string): CronSchedule {
    const parsed = CronSchedule.parse(expression, timezone);
    if (Array.isArray(parsed)) throw new Error(parsed.map((problem) => problem.message).join('; '));
    return parsed;
  }

  /** The first tick strictly after `after`, or null when there is none. */
  nextAfter(after: Date): Date | null {
    return this.cron.nextRun(after);
  }

  /** The next `count` ticks strictly after `after`. */
  upcoming(count: number, after: Date): Date[] {
    return this.cron.nextRuns(count, after);
  }
}

function isTimezone(timezone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
    return timezone.length > 0;
  } catch {
    return false;
  }
}

function messageOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/^CronPattern: /, '');
}
