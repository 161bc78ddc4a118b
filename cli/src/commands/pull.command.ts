import { relative } from 'node:path';
import type { Command } from 'commander';
import { pullItems } from '../sync/pull-items.js';
import { RegistryHttp, RegistryRequestError } from '../sync/registry-connection.js';
import { processIo, type SyncCommandIo } from './push.command.js';

interface PullOptions {
  out: string;
  workspace?: string;
}

/** `flowmesh pull <path> [--out dir]`: writes the items at or under `path` as files `push` reads back. */
export function registerPullCommand(program: Command, io: SyncCommandIo = processIo): void {
  program
    .command('pull')
    .description(
      'write the resources, variables, scripts, flows, schedules and HTTP routes at or under a path (u/<user>/..., f/<folder>/...) to files',
    )
    .argument('<path>', 'an item path, or a prefix such as f/team')
    .option('-o, --out <dir>', 'directory to write into', '.')
    .option('-w, --workspace <id>', 'workspace (default: $FLOWMESH_WORKSPACE or main)')
    .action(async (path: string, options: PullOptions) => {
      process.exitCode = await runPull(path, options, io);
    });
}

export async function runPull(path: string, options: PullOptions, io: SyncCommandIo): Promise<number> {
  const http = new RegistryHttp(io.settings(options.workspace));
  try {
    for (const item of await pullItems(http, path, options.out)) {
      io.stdout(
        `pulled ${item.kind} ${item.path} -> ${item.files.map((file) => relative(process.cwd(), file) || file).join(', ')}\n`,
      );
    }
    return 0;
  } catch (error) {
    if (!(error instanceof RegistryRequestError)) throw error;
    io.stderr(`${error.code}: ${error.message}\n`);
    return 1;
  }
}
