import type { Command } from 'commander';
import { listVersions, versionsTable } from '../sync/list-versions.js';
import { RegistryHttp, RegistryRequestError } from '../sync/registry-connection.js';
import { processIo, type SyncCommandIo } from './push.command.js';

interface VersionsOptions {
  json?: boolean;
  workspace?: string;
}

/** `flowmesh versions <resource path>`: the resource's history, newest first. */
export function registerVersionsCommand(program: Command, io: SyncCommandIo = processIo): void {
  program
    .command('versions')
    .description("list a resource's versions, newest first")
    .argument('<path>', 'the resource path (u/<user>/..., f/<folder>/...)')
    .option('--json', 'print JSON instead of a table')
    .option('-w, --workspace <id>', 'workspace (default: $FLOWMESH_WORKSPACE or main)')
    .action(async (path: string, options: VersionsOptions) => {
      process.exitCode = await runVersions(path, options, io);
    });
}

export async function runVersions(
  path: string,
  options: VersionsOptions,
  io: SyncCommandIo,
): Promise<number> {
  try {
    const versions = await listVersions(new RegistryHttp(io.settings(options.workspace)), path);
    io.stdout(options.json ? `${JSON.stringify(versions, null, 2)}\n` : versionsTable(versions));
    return 0;
  } catch (error) {
    if (!(error instanceof RegistryRequestError)) throw error;
    io.stderr(`${error.code}: ${error.message}\n`);
    return 1;
  }
}
