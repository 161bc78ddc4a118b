import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  FlowSchema,
  ListedFlowSchema,
  ListedResourceSchema,
  ListedScriptSchema,
  ResourceSchema,
  ScriptSchema,
  VariableSchema,
} from '@flowmesh/contracts';
import { stringify } from 'yaml';
import { z } from 'zod';
import { HttpTriggersApi } from '../triggers/http-triggers-api.js';
import { SchedulesApi } from '../triggers/schedules-api.js';
import { extensionOf, type ItemKind } from './item-document.js';
import { RegistryRequestError, type RegistryHttp } from './registry-connection.js';

export interface PulledItem {
  readonly kind: ItemKind;
  readonly path: string;
  /** The files written for it (a script: its code file and its sidecar). */
  readonly files: string[];
}

/**
 * Writes every item at `path`, or under it (`f/team` pulls all of `f/team/...`), into `outDir`
 * as files `push` reads back: `<path>.resource.yaml`, `<path>.variable.yaml`, `<path>.flow.yaml`,
 * and a script as its code file with a `<path>.script.yaml` sidecar; schedules and HTTP routes
 * as `<path>.schedule.yaml` and `<path>.http_trigger.yaml` (Windmill's file names). A secret
 * variable's value is not written: pushing the file back leaves the registry's value as it is. A
 * trigger's file holds its definition only: not its owner, nor anything of the token it runs with.
 */
export async function pullItems(http: RegistryHttp, path: string, outDir: string): Promise<PulledItem[]> {
  const prefix = path.replace(/\/+$/, '');
  const under = (rows: readonly { readonly path: string }[]) =>
    rows.filter((row) => row.path === prefix || row.path.startsWith(`${prefix}/`)).map((row) => row.path);
  const query = `list?path_start=${encodeURIComponent(prefix)}`;
  const triggersUnder = <T extends { readonly path: string }>(rows: readonly T[]) =>
    rows.filter((row) => row.path === prefix || row.path.startsWith(`${prefix}/`));
  const [resources, variables, scripts, flows, schedules, routes] = await Promise.all([
    http.get(`resources/${query}`, z.array(ListedResourceSchema)).then(under),
    http.get(`variables/${query}`, z.array(VariableSchema)).then(under),
    http.get(`scripts/${query}`, z.array(ListedScriptSchema)).then(under),
    http.get(`flows/${query}`, z.array(ListedFlowSchema)).then(under),
    orNoneServed(new SchedulesApi(http).list({ pathStart: prefix })).then(triggersUnder),
    orNoneServed(new HttpTriggersApi(http).list({ pathStart: prefix })).then(triggersUnder),
  ]);
  const found =
    resources.length + variables.length + scripts.length + flows.length + schedules.length + routes.length;
  if (found === 0) {
    throw new RegistryRequestError(
      404,
      'NOT_FOUND',
      `nothing at or under ${prefix} in workspace "${http.workspace}" that you may read`,
    );
  }

  const pulled: PulledItem[] = [];
  const write = async (kind: ItemKind, itemPath: string, files: Array<[string, string]>) => {
    for (const [file, text] of files) {
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, text, 'utf8');
    }
    pulled.push({ kind, path: itemPath, files: files.map(([file]) => file) });
  };
  const base = (itemPath: string) => join(outDir, ...itemPath.split('/'));

  for (const itemPath of variables) {
    const variable = await http.get(`variables/get/${itemPath}?decrypt_secret=false`, VariableSchema);
    const document = compact({
      kind: 'variable',
      path: itemPath,
      is_secret: variable.is_secret,
      ...(variable.is_secret ? {} : { value: variable.value }),
      description: variable.description,
    });
    await write('variable', itemPath, [
      [`${base(itemPath)}.variable.yaml`, yaml(document, variable.is_secret ? SECRET_NOTE : undefined)],
    ]);
  }
  for (const itemPath of resources) {
    const resource = await http.get(`resources/get/${itemPath}`, ResourceSchema);
    const document = compact({
      kind: 'resource',
      path: itemPath,
      resource_type: resource.resource_type,
      description: resource.description,
      value: resource.value,
    });
    await write('resource', itemPath, [[`${base(itemPath)}.resource.yaml`, yaml(document)]]);
  }
  for (const itemPath of scripts) {
    const script = await http.get(`scripts/get/p/${itemPath}`, ScriptSchema);
    const sidecar = compact({
      kind: 'script',
      path: itemPath,
      language: script.language,
      summary: script.summary,
      description: script.description,
      lock: script.lock,
      schema: script.schema,
    });
    await write('script', itemPath, [
      [`${base(itemPath)}${extensionOf(script.language)}`, script.content],
      [`${base(itemPath)}.script.yaml`, yaml(sidecar)],
    ]);
  }
  for (const itemPath of flows) {
    const flow = await http.get(`flows/get/${itemPath}`, FlowSchema);
    const document = compact({
      kind: 'flow',
      path: itemPath,
      summary: flow.summary,
      description: flow.description,
      value: flow.value,
      schema: flow.schema,
    });
    await write('flow', itemPath, [[`${base(itemPath)}.flow.yaml`, yaml(document)]]);
  }
  for (const schedule of schedules) {
    const document = compact({
      kind: 'schedule',
      path: schedule.path,
      summary: schedule.summary,
      description: schedule.description,
      schedule: schedule.schedule,
      timezone: schedule.timezone,
      cron_version: schedule.cron_version,
      script_path: schedule.script_path,
      is_flow: schedule.is_flow,
      args: schedule.args,
      enabled: schedule.enabled,
      on_failure: schedule.on_failure,
      on_failure_times: schedule.on_failure_times,
      on_failure_exact: schedule.on_failure_exact,
      on_failure_extra_args: schedule.on_failure_extra_args,
      on_recovery: schedule.on_recovery,
      on_recovery_times: schedule.on_recovery_times,
      on_recovery_extra_args: schedule.on_recovery_extra_args,
      on_success: schedule.on_success,
      on_success_extra_args: schedule.on_success_extra_args,
      ws_error_handler_muted: schedule.ws_error_handler_muted,
      retry: schedule.retry,
      no_flow_overlap: schedule.no_flow_overlap,
      tag: schedule.tag,
      paused_until: schedule.paused_until,
    });
    await write('schedule', schedule.path, [[`${base(schedule.path)}.schedule.yaml`, yaml(document)]]);
  }
  for (const route of routes) {
    const document = compact({
      kind: 'http_trigger',
      path: route.path,
      summary: route.summary,
      description: route.description,
      route_path: route.route_path,
      http_method: route.http_method,
      workspaced_route: route.workspaced_route,
      script_path: route.script_path,
      is_flow: route.is_flow,
      request_type: route.request_type,
      authentication_method: route.authentication_method,
      authentication_resource_path: route.authentication_resource_path,
      wrap_body: route.wrap_body,
      raw_string: route.raw_string,
      mode: route.mode,
    });
    await write('http_trigger', route.path, [[`${base(route.path)}.http_trigger.yaml`, yaml(document)]]);
  }
  return pulled;
}

/**
 * A list the mesh does not serve (a registry reached without the orchestrator behind the same
 * address) holds nothing: pulling resources and flows still works there.
 */
async function orNoneServed<T>(list: Promise<T[]>): Promise<T[]> {
  try {
    return await list;
  } catch (error) {
    if (error instanceof RegistryRequestError && error.status === 404) return [];
    throw error;
  }
}

const SECRET_NOTE = 'A secret: its value stays in the registry. Add `value:` to change it on push.';

function yaml(document: Record<string, unknown>, note?: string): string {
  return `${note ? `# ${note}\n` : ''}${stringify(document, { lineWidth: 0 })}`;
}

/** Drops null fields: an absent field pushes as null. */
function compact(document: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(document).filter(([, value]) => value !== null && value !== undefined),
  );
}
