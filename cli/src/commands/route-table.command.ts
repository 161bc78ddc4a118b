import { Option, type Command } from 'commander';
import { renderRoutes, ROUTE_FORMATS, type RouteFormat } from '../routes/route-table.js';

/**
 * `flowmesh route-table [--format text|json|helm]`: the entry point's HTTP route table from the
 * contracts (which service answers which path). `flowmesh routes` is the user-defined HTTP routes.
 */
export function registerRouteTableCommand(program: Command): void {
  program
    .command('route-table')
    .description('print the HTTP route table: which service answers which path under the entry point')
    .addOption(new Option('--format <format>', 'output format').choices(ROUTE_FORMATS).default('text'))
    .action((options: { format: RouteFormat }) => {
      process.stdout.write(`${renderRoutes(options.format)}\n`);
    });
}
