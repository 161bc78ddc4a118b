import { MAX_SCHEDULE_PREVIEW } from '@flowmesh/contracts';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { ScheduleDocumentSchema } from '../sync/item-document.js';
import { SchedulesApi } from '../triggers/schedules-api.js';
import {
  JSON_OPTION,
  printFields,
  printJson,
  printTable,
  targetOf,
  withMesh,
  WORKSPACE_OPTION,
  type TriggerCommandOptions,
} from '../triggers/trigger-command.js';
import { readTriggerFile } from '../triggers/trigger-file.js';
import { processIo, type SyncCommandIo } from './push.command.js';

interface ListOptions extends TriggerCommandOptions {
  pathStart?: string;
}

interface PreviewOptions extends TriggerCommandOptions {
  timezone: string;
  count?: number;
  cronVersion?: 'v1' | 'v2';
}

/** A schedule file for `update`: what `create` takes, its path and target optional (an edit keeps them). */
const ScheduleEditFileSchema = ScheduleDocumentSchema.partial({
  path: true,
  script_path: true,
  is_flow: true,
});

const FILE_HELP = `
A schedule file (YAML or JSON) holds Windmill's schedule fields, the same file flowmesh push reads:
  kind: schedule                 (optional here)
  path: f/ops/nightly            the schedule's own path
  schedule: "0 0 3 * * *"        cron, seconds first (croner's syntax, as Windmill v2)
  timezone: Europe/Paris         IANA name
  script_path: f/ops/report      what it runs
  is_flow: true
  args: { day: yesterday }
  enabled, summary, description, on_failure (script/<path> or flow/<path>), on_failure_times,
  on_failure_exact, on_failure_extra_args, on_recovery, on_recovery_times, on_recovery_extra_args,
  on_success, on_success_extra_args, no_flow_overlap, paused_until, tag, retry, cron_version
Talks to the mesh at $FLOWMESH_URL (default http://127.0.0.1:8000) with $FLOWMESH_TOKEN.`;

/**
 * `flowmesh schedules list|get|create|update|delete|enable|disable|preview`: the mesh's schedules
 * through its HTTP API (Windmill's `schedules/*` routes), as the token's user.
 */
export function registerSchedulesCommands(program: Command, io: SyncCommandIo = processIo): void {
  const schedules = program
    .command('schedules')
    .description('list, create, change and preview the schedules that run scripts and flows')
    .addHelpText('after', FILE_HELP);
  const run = (options: TriggerCommandOptions, action: (api: SchedulesApi) => Promise<void>) =>
    withMesh(io, options, (http) => action(new SchedulesApi(http)));

  schedules
    .command('list')
    .description('the schedules you may see')
    .option('--path-start <prefix>', 'only schedules whose path starts with this (f/ops)')
    .option(...JSON_OPTION)
    .option(...WORKSPACE_OPTION)
    .action(async (options: ListOptions) => {
      process.exitCode = await run(options, async (schedules) => {
        const list = await schedules.list({ pathStart: options.pathStart });
        if (options.json) return printJson(io, list);
        printTable(
          io,
          ['PATH', 'SCHEDULE', 'TIMEZONE', 'RUNS', 'ENABLED'],
          list.map((s) => [s.path, s.schedule, s.timezone, targetOf(s), s.enabled ? 'yes' : 'no']),
        );
      });
    });

  schedules
    .command('get')
    .description('one schedule, every field')
    .argument('<path>', "the schedule's path")
    .option(...JSON_OPTION)
    .option(...WORKSPACE_OPTION)
    .action(async (path: string, options: TriggerCommandOptions) => {
      process.exitCode = await run(options, async (schedules) => {
        const schedule = await schedules.get(path);
        if (options.json) printJson(io, schedule);
        else printFields(io, schedule);
      });
    });

  schedules
    .command('create')
    .description('create a schedule from a file')
    .argument('<file>', 'a .yaml or .json schedule file')
    .option(...WORKSPACE_OPTION)
    .action(async (file: string, options: TriggerCommandOptions) => {
      process.exitCode = await run(options, async (schedules) => {
        const { kind: _kind, ...schedule } = await readTriggerFile(file, 'schedule', ScheduleDocumentSchema);
        await schedules.create(schedule);
        io.stdout(`created schedule ${schedule.path}\n`);
      });
    });

  schedules
    .command('update')
    .description(
      "change a schedule from a file (everything but what it runs; fields left out are cleared, as Windmill's edit)",
    )
    .argument('<path>', "the schedule's path")
    .argument('<file>', 'a .yaml or .json schedule file')
    .option(...WORKSPACE_OPTION)
    .action(async (path: string, file: string, options: TriggerCommandOptions) => {
      process.exitCode = await run(options, async (schedules) => {
        const document = await readTriggerFile(file, 'schedule', ScheduleEditFileSchema);
        const {
          kind: _kind,
          path: _path,
          script_path: _target,
          is_flow: _isFlow,
          enabled,
          ...edit
        } = document;
        await schedules.update(path, edit);
        if (enabled !== undefined && enabled !== null) await schedules.setEnabled(path, enabled);
        io.stdout(`updated schedule ${path}\n`);
      });
    });

  schedules
    .command('delete')
    .description('delete a schedule (runs already started go on)')
    .argument('<path>', "the schedule's path")
    .option(...WORKSPACE_OPTION)
    .action(async (path: string, options: TriggerCommandOptions) => {
      process.exitCode = await run(options, async (schedules) => {
        await schedules.delete(path);
        io.stdout(`deleted schedule ${path}\n`);
      });
    });

  for (const [name, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    schedules
      .command(name)
      .description(enabled ? 'start firing a schedule again' : 'stop a schedule firing (kept, not deleted)')
      .argument('<path>', "the schedule's path")
      .option(...WORKSPACE_OPTION)
      .action(async (path: string, options: TriggerCommandOptions) => {
        process.exitCode = await run(options, async (schedules) => {
          await schedules.setEnabled(path, enabled);
          io.stdout(`${enabled ? 'enabled' : 'disabled'} schedule ${path}\n`);
        });
      });
  }

  schedules
    .command('preview')
    .description('the next fire times of a cron expression, checked by the mesh')
    .argument('<cron>', 'a cron expression, seconds first ("0 */15 * * * *"), or 5 fields')
    .option('--timezone <tz>', "IANA timezone (Europe/Paris); default: this machine's", localTimezone())
    .option('--count <n>', `how many fire times, 1 to ${MAX_SCHEDULE_PREVIEW} (default 5)`, parseCount)
    .addOption(new Option('--cron-version <version>', "Windmill's cron_version").choices(['v1', 'v2']))
    .option(...JSON_OPTION)
    .option(...WORKSPACE_OPTION)
    .action(async (cron: string, options: PreviewOptions) => {
      process.exitCode = await run(options, async (schedules) => {
        const next = await schedules.preview(cron, {
          timezone: options.timezone,
          count: options.count,
          cronVersion: options.cronVersion,
        });
        if (options.json) return printJson(io, next);
        printTable(
          io,
          ['UTC', options.timezone.toUpperCase() === 'UTC' ? 'LOCAL' : options.timezone],
          next.map((at) => [at, wallClock(at, options.timezone)]),
        );
      });
    });
}

function parseCount(value: string): number {
  const count = Number(value);
  if (!/^\d+$/.test(value) || count < 1 || count > MAX_SCHEDULE_PREVIEW)
    throw new InvalidArgumentError(`must be a whole number from 1 to ${MAX_SCHEDULE_PREVIEW}`);
  return count;
}

function localTimezone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** `2026-12-07 14:00:00` in `timezone` (the ISO time as given when the timezone is unknown here). */
function wallClock(iso: string, timezone: string): string {
  try {
    return new Intl.DateTimeFormat('sv-SE', {
      timeZone: timezone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    }).format(new Date(iso));
  } catch {
    return iso;
  }
}
