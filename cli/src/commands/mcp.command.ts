import { isMcpScope, scopeProblem } from '@flowmesh/contracts';
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
  scope: string[];
  label?: string;
  expires?: string;
}

const CreatedTokenSchema = z.object({ token: z.string(), token_prefix: z.string() });

/**
 * `flowmesh mcp token`: a token with an MCP scope (Windmill's), the workspace's MCP URL, and a
 * client configuration to paste: what an MCP client (an IDE, a desktop assistant) needs to call
 * the workspace's scripts and flows as tools.
 */
export function registerMcpCommands(program: Command, io: SyncCommandIo = processIo): void {
  const mcp = program
    .command('mcp')
    .description("the workspace as an MCP server: its scripts and flows as an MCP client's tools");

  mcp
    .command('token')
    .description(
      'create a token whose MCP tools are the items its scopes name, and print the URL and a client configuration (the token is shown once)',
    )
    .option(
      '--scope <scope>',
      'mcp:all, mcp:all:f/<folder>/*, mcp:scripts:<paths> or mcp:flows:<paths> (repeatable; default mcp:all)',
      collectScope,
      [],
    )
    .option('--label <text>', "the token's label (default: mcp)")
    .option('--expires <iso>', 'when the token stops working (ISO date-time; default: never)')
    .option(...JSON_OPTION)
    .option(...WORKSPACE_OPTION)
    .action(async (options: TokenOptions) => {
      process.exitCode = await withMesh(io, options, async (http) => {
        const scopes = options.scope.length > 0 ? options.scope : ['mcp:all'];
        const created = await http.post(
          'tokens/create',
          {
            label: options.label ?? 'mcp',
            scopes,
            ...(options.expires === undefined ? {} : { expiration: options.expires }),
          },
          CreatedTokenSchema,
        );
        const url = `${http.baseUrl}/api/mcp/w/${encodeURIComponent(http.workspace)}/mcp`;
        const config = {
          mcpServers: {
            flowmesh: { type: 'http', url, headers: { Authorization: `Bearer ${created.token}` } },
          },
        };
        if (options.json) return printJson(io, { token: created.token, url, scopes, config });
        printTable(
          io,
          ['WHAT', 'VALUE'],
          [
            ['token', created.token],
            ['url', url],
            ['scopes', scopes.join(' ')],
          ],
        );
        io.stdout(
          `A client configuration (Claude Code's .mcp.json, Cursor's mcp.json):\n${JSON.stringify(config, null, 2)}\n` +
            'A client that takes only a URL may pass the token as ?token=<token>. It is not shown again.\n',
        );
      });
    });
}

function collectScope(value: string, previous: string[]): string[] {
  const problem = isMcpScope(value)
    ? scopeProblem(value)
    : `"${value}" is not an MCP scope (mcp:all, mcp:all:f/<folder>/*, mcp:scripts:<paths>, mcp:flows:<paths>)`;
  if (problem) throw new InvalidArgumentError(problem);
  return [...previous, value];
}
