import { MeshError, RetrySchema, toValidationIssues, type ValidationIssue } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { RegistryGateway } from '../../registry/registry.gateway.js';
import { ArgsSchemaCheck } from '../args-schema.js';
import { CronSchedule } from './cron-schedule.js';

/** A handler path as Windmill writes it: `script/<path>`, `flow/<path>`, or a bare script path. */
export interface HandlerTarget {
  readonly path: string;
  readonly isFlow: boolean;
}

export function handlerTarget(prefixed: string): HandlerTarget {
  if (prefixed.startsWith('flow/')) return { path: prefixed.slice('flow/'.length), isFlow: true };
  if (prefixed.startsWith('script/')) return { path: prefixed.slice('script/'.length), isFlow: false };
  return { path: prefixed, isFlow: false };
}

/** What a schedule's save is checked on, as its editor. */
export interface ScheduleDraft {
  readonly token: string;
  readonly workspace: string;
  readonly schedule: string;
  readonly timezone: string;
  readonly scriptPath: string;
  readonly isFlow: boolean;
  readonly args: Record<string, unknown>;
  readonly handlers: Partial<Record<'on_failure' | 'on_recovery' | 'on_success', string | null | undefined>>;
  /** Windmill's retry of a script's run (an OpenFlow module `retry`). */
  readonly retry?: Record<string, unknown> | null;
}

const GONE = new Set(['NOT_FOUND', 'PERMISSION_DENIED']);

/**
 * Checks a schedule before it is saved, every problem at once, each naming its field (400):
 * the cron and timezone (croner), the target flow or script (read through the registry as the
 * editor: one they may not read is refused as one that does not exist), the args against the
 * target's JSON schema (Ajv), and each handler the same way as the target.
 */
@Injectable()
export class ScheduleValidator {
  private readonly args = new ArgsSchemaCheck();

  constructor(private readonly registry: RegistryGateway) {}

  /** The parsed cron, or VALIDATION_FAILED naming `schedule` or `timezone`. */
  cron(schedule: string, timezone: string): CronSchedule {
    const parsed = CronSchedule.parse(schedule, timezone);
    if (Array.isArray(parsed)) throw failure(parsed);
    return parsed;
  }

  async check(draft: ScheduleDraft): Promise<CronSchedule> {
    const cron = CronSchedule.parse(draft.schedule, draft.timezone);
    const issues: ValidationIssue[] = Array.isArray(cron) ? [...cron] : [];
    if (draft.retry) {
      const retry = RetrySchema.safeParse(draft.retry);
      if (!retry.success)
        issues.push(
          ...toValidationIssues(retry.error).map((issue) => ({
            path: issue.path === '(root)' ? 'retry' : `retry.${issue.path}`,
            message: issue.message,
          })),
        );
    }
    const [target, ...handlers] = await Promise.all([
      this.readSchema(draft, { path: draft.scriptPath, isFlow: draft.isFlow }, 'script_path'),
      ...Object.entries(draft.handlers)
        .filter((entry): entry is [string, string] => typeof entry[1] === 'string')
        .map(([field, prefixed]) => this.readSchema(draft, handlerTarget(prefixed), field)),
    ]);
    for (const read of [target, ...handlers]) if (read && 'issue' in read) issues.push(read.issue);
    if (target && 'schema' in target && target.schema)
      issues.push(...this.args.issues(target.schema, draft.args));
    if (issues.length > 0 || Array.isArray(cron)) throw failure(issues);
    return cron;
  }

  private async readSchema(
    draft: ScheduleDraft,
    target: HandlerTarget,
    field: string,
  ): Promise<{ schema: Record<string, unknown> | null } | { issue: ValidationIssue } | undefined> {
    const kind = target.isFlow ? 'flow' : 'script';
    try {
      const item = target.isFlow
        ? await this.registry.getFlow(draft.token, draft.workspace, target.path)
        : await this.registry.getScript(draft.token, draft.workspace, target.path);
      return { schema: item.schema ?? null };
    } catch (error) {
      if (error instanceof MeshError && GONE.has(error.code))
        return {
          issue: { path: field, message: `${kind} ${target.path} does not exist or you may not read it` },
        };
      throw error;
    }
  }
}

function failure(issues: readonly ValidationIssue[]): MeshError {
  const first = issues[0];
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  return new MeshError(
    'VALIDATION_FAILED',
    `invalid schedule: ${first ? `${first.path}: ${first.message}` : 'invalid'}${more}`,
    { issues },
  );
}
