import { Option, type Command } from 'commander';
import { renderRoutes, ROUTE_FORMATS, type RouteFormat } from '../routes/route-table.js';

/** `flowmesh routes [--format text|json|helm]`: the HTTP route table from the contracts. */
export function registerRoutesCommand(program: Command): void {
  program
    .command('routes')
    .description('print the HTTP route table: which service answers which path under the entry point')
    .addOption(new Option('--format <format>', 'output format').choices(ROUTE_FORMATS).default('text'))
    .action((options: { format: RouteFormat }) => {
      process.stdout.write(`${renderRoutes(options.format)}\n`);
    });
}
