import type { HttpTrigger } from '@flowmesh/contracts';
import type { Command } from 'commander';
import { HttpTriggerDocumentSchema } from '../sync/item-document.js';
import { HttpTriggersApi } from '../triggers/http-triggers-api.js';
import {
  JSON_OPTION,
  printFields,
  printJson,
  printTable,
  targetOf,
  withMesh,
  WORKSPACE_OPTION,
  type TriggerCommandOptions,
} from '../triggers/trigger-command.js';
import { readTriggerFile } from '../triggers/trigger-file.js';
import { processIo, type SyncCommandIo } from './push.command.js';

interface ListOptions extends TriggerCommandOptions {
  pathStart?: string;
}

/** A route file for `update`: the whole route as `create` takes it, its path defaulting to the one updated. */
const RouteEditFileSchema = HttpTriggerDocumentSchema.partial({ path: true });

const FILE_HELP = `
A route file (YAML or JSON) holds Windmill's HTTP trigger fields, the same file flowmesh push reads:
  kind: http_trigger             (optional here)
  path: f/shop/order_created     the route's own path (who may see and edit it)
  route_path: orders/:id         served at /api/r/orders/:id (/api/r/<workspace>/... with workspaced_route)
  http_method: post              get, post, put, delete, patch
  script_path: f/shop/on_order   what it runs
  is_flow: true
  request_type: async            sync (answer the result) or async (201 and the job id)
  authentication_method: signature   none, windmill, api_key, basic_http, signature
  authentication_resource_path: f/shop/github_secret
  workspaced_route, wrap_body, raw_string, summary, description, mode (enabled, disabled)
Talks to the mesh at $FLOWMESH_URL (default http://127.0.0.1:8000) with $FLOWMESH_TOKEN.`;

/**
 * `flowmesh routes list|get|create|update|delete|enable|disable`: user-defined HTTP routes
 * (Windmill's HTTP triggers) through the mesh's HTTP API, as the token's user. The entry point's
 * own route table is `flowmesh route-table`.
 */
export function registerRoutesCommands(program: Command, io: SyncCommandIo = processIo): void {
  const routes = program
    .command('routes')
    .description('list, create and change HTTP routes that run scripts and flows (served at /api/r/...)')
    .addHelpText('after', FILE_HELP);
  const run = (options: TriggerCommandOptions, action: (api: HttpTriggersApi) => Promise<void>) =>
    withMesh(io, options, (http) => action(new HttpTriggersApi(http)));

  routes
    .command('list')
    .description('the routes you may see')
    .option('--path-start <prefix>', 'only routes whose own path starts with this (f/shop)')
    .option(...JSON_OPTION)
    .option(...WORKSPACE_OPTION)
    .action(async (options: ListOptions) => {
      process.exitCode = await run(options, async (api) => {
        const list = await api.list({ pathStart: options.pathStart });
        if (options.json) return printJson(io, list);
        printTable(
          io,
          ['PATH', 'METHOD', 'ROUTE', 'AUTH', 'TYPE', 'RUNS', 'MODE'],
          list.map((route) => [
            route.path,
            route.http_method.toUpperCase(),
            servedAt(route),
            route.authentication_method,
            route.request_type,
            targetOf(route),
            route.mode,
          ]),
        );
      });
    });

  routes
    .command('get')
    .description('one route, every field')
    .argument('<path>', "the route's path (f/..., u/...)")
    .option(...JSON_OPTION)
    .option(...WORKSPACE_OPTION)
    .action(async (path: string, options: TriggerCommandOptions) => {
      process.exitCode = await run(options, async (api) => {
        const route = await api.get(path);
        if (options.json) printJson(io, route);
        else printFields(io, { ...route, served_at: servedAt(route) });
      });
    });

  routes
    .command('create')
    .description('create a route from a file')
    .argument('<file>', 'a .yaml or .json route file')
    .option(...WORKSPACE_OPTION)
    .action(async (file: string, options: TriggerCommandOptions) => {
      process.exitCode = await run(options, async (api) => {
        const { kind: _kind, ...route } = await readTriggerFile(
          file,
          'http_trigger',
          HttpTriggerDocumentSchema,
        );
        await api.create(route);
        io.stdout(
          `created route ${route.path}: ${route.http_method.toUpperCase()} /api/r/${route.route_path}\n`,
        );
      });
    });

  routes
    .command('update')
    .description("replace a route's definition from a file (a path in the file renames it)")
    .argument('<path>', "the route's path")
    .argument('<file>', 'a .yaml or .json route file')
    .option(...WORKSPACE_OPTION)
    .action(async (path: string, file: string, options: TriggerCommandOptions) => {
      process.exitCode = await run(options, async (api) => {
        const { kind: _kind, ...route } = await readTriggerFile(file, 'http_trigger', RouteEditFileSchema);
        await api.update(path, { ...route, path: route.path ?? path });
        io.stdout(`updated route ${route.path ?? path}\n`);
      });
    });

  routes
    .command('delete')
    .description('delete a route: its path answers 404 from then on')
    .argument('<path>', "the route's path")
    .option(...WORKSPACE_OPTION)
    .action(async (path: string, options: TriggerCommandOptions) => {
      process.exitCode = await run(options, async (api) => {
        await api.delete(path);
        io.stdout(`deleted route ${path}\n`);
      });
    });

  for (const [name, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    routes
      .command(name)
      .description(
        enabled ? 'serve a route again' : 'stop serving a route (it answers 404; kept, not deleted)',
      )
      .argument('<path>', "the route's path")
      .option(...WORKSPACE_OPTION)
      .action(async (path: string, options: TriggerCommandOptions) => {
        process.exitCode = await run(options, async (api) => {
          await api.setEnabled(path, enabled);
          io.stdout(`${enabled ? 'enabled' : 'disabled'} route ${path}\n`);
        });
      });
  }
}

/** Where the entry point serves it: `/api/r/orders/:id`, or under the workspace. */
function servedAt(route: HttpTrigger): string {
  return `/api/r/${route.workspaced_route ? `${route.workspace_id}/` : ''}${route.route_path}`;
}
