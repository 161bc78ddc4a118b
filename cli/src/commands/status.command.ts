import type { Command } from 'commander';
import { readCliSettings } from '../cli.config.js';
import { renderStatusTable } from '../status/status-table.js';
import { parsePositiveInt } from './option-parsers.js';
import { cliNatsUrl } from '../mesh/local-nats-auth.js';

interface StatusOptions {
  json?: boolean;
  timeout: number;
  natsUrl?: string;
  prefix?: string;
}

/**
 * `flowmesh status`: every process of the mesh, its version and health, as it answers its ping
 * over NATS. Exit code 1 when any process is down or degraded.
 */
export function registerStatusCommand(program: Command): void {
  program
    .command('status')
    .description(
      'list each service of the mesh (and the worker) with its version and health, asked over NATS',
    )
    .option('--json', 'print JSON instead of a table')
    .option('--timeout <ms>', 'how long to wait for each answer', parsePositiveInt, 2_000)
    .option(
      '--nats-url <url>',
      'NATS server (default: $NATS_URL, else the mesh flowmesh start runs here, else nats://127.0.0.1:4222)',
    )
    .option('--prefix <prefix>', 'subject prefix of the mesh (default: $FLOWMESH_SUBJECT_PREFIX or fm)')
    .action(async (options: StatusOptions) => {
      const settings = readCliSettings(process.env);
      // Loaded here, not as the CLI starts: the NATS client costs ~0.6 s of CPU.
      const { queryMeshStatus } = await import('../status/query-status.js');
      const rows = await queryMeshStatus({
        natsUrl: options.natsUrl ?? (await cliNatsUrl(settings, process.cwd())),
        subjectPrefix: options.prefix ?? settings.subjectPrefix,
        timeoutMs: options.timeout,
      });
      process.stdout.write(
        options.json ? `${JSON.stringify(rows, null, 2)}\n` : `${renderStatusTable(rows)}\n`,
      );
      if (rows.some((row) => row.health !== 'up')) process.exitCode = 1;
    });
}
