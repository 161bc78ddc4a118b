import type { Command } from 'commander';
import { pushItems } from '../sync/push-items.js';
import { readItemFiles } from '../sync/read-item-files.js';
import { readRegistrySettings, RegistryHttp, type RegistrySettings } from '../sync/registry-connection.js';

export interface SyncCommandIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Settings for `--workspace`, from the environment by default. */
  settings: (workspace?: string) => RegistrySettings;
}

export const processIo: SyncCommandIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  settings: (workspace) => readRegistrySettings(process.env, workspace),
};

const FILE_FORMAT_HELP = `
Each YAML or JSON file is one item and says which with kind:
  kind: resource   path, resource_type, value, description?
  kind: variable   path, value, is_secret?, description?   (a pulled secret has no value: pushing keeps the registry's)
  kind: script     path, language, content, summary?, description?, lock?, schema?
  kind: flow       path, summary?, description?, value (the OpenFlow value), schema?
  kind: schedule   path, schedule, timezone, script_path, is_flow, args?, enabled?, handlers... (flowmesh schedules --help)
  kind: http_trigger  path, route_path, http_method, script_path, is_flow, authentication_method, ... (flowmesh routes --help)
Windmill's own files (wmill sync: f/ops/nightly.schedule.yaml, f/ops/hook.http_trigger.yaml) need
neither: the name says the kind, the place under the directory pushed says the path.
A script may instead be a code file (lookup.ts, calc.py, ...) beside a sidecar lookup.script.yaml
holding the other fields; the language then defaults from the extension.
Talks to the mesh at $FLOWMESH_URL (default http://127.0.0.1:8000) with $FLOWMESH_TOKEN.`;

interface PushOptions {
  workspace?: string;
}

/**
 * `flowmesh push <file|dir...>`: creates or updates resources, variables, scripts, flows,
 * schedules and HTTP routes from files (in that order: what a schedule runs exists first). Every file is checked first; with any problem nothing is pushed (exit 1). Exit 1 too
 * when the registry refused an item; the others are still pushed.
 */
export function registerPushCommand(program: Command, io: SyncCommandIo = processIo): void {
  program
    .command('push')
    .description(
      'create or update resources, variables, scripts, flows, schedules and HTTP routes from YAML/JSON files (and scripts with a .script.yaml sidecar)',
    )
    .argument('<paths...>', 'files or directories')
    .option('-w, --workspace <id>', 'workspace (default: $FLOWMESH_WORKSPACE or main)')
    .addHelpText('after', FILE_FORMAT_HELP)
    .action(async (paths: string[], options: PushOptions) => {
      process.exitCode = await runPush(paths, options, io);
    });
}

export async function runPush(
  paths: readonly string[],
  options: PushOptions,
  io: SyncCommandIo,
): Promise<number> {
  const http = new RegistryHttp(io.settings(options.workspace));
  const { items, problems } = await readItemFiles(paths);
  if (problems.length > 0) {
    io.stderr(`${problems.join('\n')}\nnothing pushed: ${problems.length} problem(s)\n`);
    return 1;
  }
  const results = await pushItems(
    http,
    items.map((item) => item.document),
  );
  for (const { document, outcome, error } of results) {
    if (error) io.stderr(`failed ${document.kind} ${document.path}: ${error}\n`);
    else io.stdout(`${outcome} ${document.kind} ${document.path}\n`);
  }
  return results.some((result) => result.error) ? 1 : 0;
}
