import type { SyncCommandIo } from '../commands/push.command.js';
import { RegistryHttp, RegistryRequestError } from '../sync/registry-connection.js';
import { renderTable } from '../status/status-table.js';

export interface TriggerCommandOptions {
  readonly workspace?: string;
  readonly json?: boolean;
}

export const WORKSPACE_OPTION = [
  '-w, --workspace <id>',
  'workspace (default: $FLOWMESH_WORKSPACE or main)',
] as const;
export const JSON_OPTION = ['--json', 'print JSON instead of a table'] as const;

/** Runs one command against the mesh's HTTP API: an error answer is its code and message on stderr, exit 1. */
export async function withMesh(
  io: SyncCommandIo,
  options: TriggerCommandOptions,
  action: (http: RegistryHttp) => Promise<void>,
): Promise<number> {
  try {
    await action(new RegistryHttp(io.settings(options.workspace)));
    return 0;
  } catch (error) {
    if (!(error instanceof RegistryRequestError)) throw error;
    io.stderr(`${error.code}: ${error.message}\n`);
    return 1;
  }
}

export function printJson(io: SyncCommandIo, value: unknown): void {
  io.stdout(`${JSON.stringify(value, null, 2)}\n`);
}

export function printTable(
  io: SyncCommandIo,
  header: readonly string[],
  rows: readonly (readonly string[])[],
): void {
  io.stdout(`${renderTable(header, rows)}\n`);
}

/** One object as `field  value` lines, nulls left out, objects as JSON. */
export function printFields(io: SyncCommandIo, object: Readonly<Record<string, unknown>>): void {
  const rows = Object.entries(object)
    .filter(([, value]) => value !== null && value !== undefined)
    .map(([field, value]) => [field, typeof value === 'string' ? value : JSON.stringify(value)]);
  printTable(io, ['FIELD', 'VALUE'], rows);
}

/** `flow f/team/report` or `script u/ada/job`. */
export function targetOf(trigger: { readonly is_flow: boolean; readonly script_path: string }): string {
  return `${trigger.is_flow ? 'flow' : 'script'} ${trigger.script_path}`;
}
