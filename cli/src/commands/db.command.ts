import type { Command } from 'commander';
import { provisionRolesFromEnv } from '../db/provision-roles.js';

/**
 * `flowmesh db provision-roles`: what `flowmesh start` does for a local mesh, for a deployment
 * (the Helm chart's hook Job runs it): a PostgreSQL role per service, owning its schema only, and
 * per worker, reaching the rows of its service's schema only.
 */
export function registerDbCommands(program: Command): void {
  const db = program.command('db').description('prepare the PostgreSQL database of a deployment');
  db.command('provision-roles')
    .description(
      'create or reset a login role per service (owner of its schema only) and per worker (its rows only) ' +
        'through DATABASE_URL, with the passwords in FLOWMESH_DB_PASSWORD_<PROCESS> ' +
        '(e.g. FLOWMESH_DB_PASSWORD_FLOW_ORCHESTRATOR, FLOWMESH_DB_PASSWORD_FLOW_ORCHESTRATOR_WORKER); idempotent',
    )
    .option(
      '--expect-endpoint <url>',
      'refuse unless DATABASE_URL names this server and database (the one the services will use)',
    )
    .action(async (options: { expectEndpoint?: string }) => {
      const lines = await provisionRolesFromEnv(process.env, options);
      process.stdout.write(lines.map((line) => `${line}\n`).join(''));
    });
}
