import { ItemPathSchema } from '@flowmesh/contracts';
import { InvalidArgumentError, type Command } from 'commander';
import { z } from 'zod';
import {
  JSON_OPTION,
  printJson,
  printTable,
  withMesh,
  WORKSPACE_OPTION,
  type TriggerCommandOptions,
} from '../triggers/trigger-command.js';
import { processIo, type SyncCommandIo } from './push.command.js';

interface TokenOptions extends TriggerCommandOptions {
  script?: boolean;
  label?: string;
  expires?: string;
}

const CreatedTokenSchema = z.object({ token: z.string(), token_prefix: z.string() });

/**
 * `flowmesh webhooks token <path>`: a token that can only run that flow (or script), and the
 * webhook URLs that run it, as Windmill's "webhook-specific token": what to hand a third party.
 */
export function registerWebhooksCommands(program: Command, io: SyncCommandIo = processIo): void {
  const webhooks = program
    .command('webhooks')
    .description(
      'run a saved flow or script from outside: its webhook URLs, with a token that can run it alone',
    );

  webhooks
    .command('token')
    .description(
      'create a token scoped to running one flow (or script) and print its webhook URLs (the token is shown once)',
    )
    .argument('<path>', 'the flow or script path (f/team/flow, u/ada/script)', parseItemPath)
    .option('--script', 'the path is a script (default: a flow)')
    .option('--label <text>', "the token's label (default: webhook <path>)")
    .option('--expires <iso>', 'when the token stops working (ISO date-time; default: never)')
    .option(...JSON_OPTION)
    .option(...WORKSPACE_OPTION)
    .action(async (path: string, options: TokenOptions) => {
      process.exitCode = await withMesh(io, options, async (http) => {
        const kind = options.script ? 'scripts' : 'flows';
        const created = await http.post(
          'tokens/create',
          {
            label: options.label ?? `webhook ${path}`,
            scopes: [`jobs:run:${kind}:${path}`],
            ...(options.expires === undefined ? {} : { expiration: options.expires }),
          },
          CreatedTokenSchema,
        );
        const base = `${http.baseUrl}/api/w/${encodeURIComponent(http.workspace)}/jobs`;
        const target = `${options.script ? 'p' : 'f'}/${path}`;
        const urls = {
          token: created.token,
          async: `${base}/run/${target}`,
          sync: `${base}/run_wait_result/${target}`,
        };
        if (options.json) return printJson(io, urls);
        printTable(
          io,
          ['WHAT', 'VALUE'],
          [
            ['token', created.token],
            ['async', `POST ${urls.async}  (answers the job id)`],
            ['sync', `POST ${urls.sync}  (answers the result)`],
          ],
        );
        io.stdout(
          `Send the token as "Authorization: Bearer <token>", or as ?token=<token> when the sender cannot set headers.\nIt is not shown again; it can run ${path} and nothing else.\n`,
        );
      });
    });
}

function parseItemPath(value: string): string {
  const parsed = ItemPathSchema.safeParse(value);
  if (!parsed.success) throw new InvalidArgumentError(parsed.error.issues[0]?.message ?? 'not an item path');
  return parsed.data;
}
