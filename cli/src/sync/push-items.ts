import { FlowSchema, ResourceSchema, ScriptSchema, VariableSchema } from '@flowmesh/contracts';
import { z } from 'zod';
import { HttpTriggersApi } from '../triggers/http-triggers-api.js';
import { SchedulesApi } from '../triggers/schedules-api.js';
import type {
  FlowDocument,
  HttpTriggerDocument,
  ItemDocument,
  ResourceDocument,
  ScheduleDocument,
  ScriptDocument,
  VariableDocument,
} from './item-document.js';
import { ITEM_KINDS } from './item-document.js';
import { jsonEqual } from './json-equal.util.js';
import { RegistryRequestError, type RegistryHttp } from './registry-connection.js';

export type PushOutcome = 'created' | 'updated' | 'unchanged';

export interface PushResult {
  readonly document: ItemDocument;
  readonly outcome?: PushOutcome;
  /** Set when this item failed; the others are still pushed. */
  readonly error?: string;
}

/**
 * Creates or updates each item through the registry's HTTP routes, variables first, then
 * resources, scripts and flows, so what others reference exists first. An item identical to
 * what the registry holds is left alone: pushing the same files twice writes no new versions.
 */
export async function pushItems(
  http: RegistryHttp,
  documents: readonly ItemDocument[],
): Promise<PushResult[]> {
  const ordered = [...documents].sort((a, b) => ITEM_KINDS.indexOf(a.kind) - ITEM_KINDS.indexOf(b.kind));
  const results: PushResult[] = [];
  for (const document of ordered) {
    try {
      results.push({ document, outcome: await pushOne(http, document) });
    } catch (error) {
      if (!(error instanceof RegistryRequestError)) throw error;
      results.push({ document, error: `${error.code}: ${error.message}` });
    }
  }
  return results;
}

function pushOne(http: RegistryHttp, document: ItemDocument): Promise<PushOutcome> {
  switch (document.kind) {
    case 'resource':
      return pushResource(http, document);
    case 'variable':
      return pushVariable(http, document);
    case 'script':
      return pushScript(http, document);
    case 'flow':
      return pushFlow(http, document);
    case 'schedule':
      return pushSchedule(http, document);
    case 'http_trigger':
      return pushHttpTrigger(http, document);
  }
}

async function pushResource(http: RegistryHttp, doc: ResourceDocument): Promise<PushOutcome> {
  const description = doc.description ?? null;
  if (!(await http.get(`resources/exists/${doc.path}`, z.boolean()))) {
    await http.postText(`resources/create`, {
      path: doc.path,
      resource_type: doc.resource_type,
      value: doc.value,
      description,
    });
    return 'created';
  }
  const current = await http.get(`resources/get/${doc.path}`, ResourceSchema);
  if (current.resource_type !== doc.resource_type) {
    throw new RegistryRequestError(
      400,
      'VALIDATION_FAILED',
      `resource_type: ${doc.path} is a "${current.resource_type}" resource in the registry; the file says "${doc.resource_type}"`,
    );
  }
  if (jsonEqual(current.value, doc.value) && current.description === description) return 'unchanged';
  await http.postText(`resources/update/${doc.path}`, { value: doc.value, description });
  return 'updated';
}

async function pushVariable(http: RegistryHttp, doc: VariableDocument): Promise<PushOutcome> {
  const description = doc.description ?? null;
  if (!(await http.get(`variables/exists/${doc.path}`, z.boolean()))) {
    if (doc.value === undefined)
      throw new RegistryRequestError(
        400,
        'VALIDATION_FAILED',
        `value: variable ${doc.path} is new, so it needs a value`,
      );
    await http.postText(`variables/create`, {
      path: doc.path,
      value: doc.value,
      is_secret: doc.is_secret,
      description,
    });
    return 'created';
  }
  const current = await http.get(
    `variables/get/${doc.path}?decrypt_secret=${doc.value !== undefined}`,
    VariableSchema,
  );
  const sameValue = doc.value === undefined || current.value === doc.value;
  if (sameValue && current.is_secret === doc.is_secret && current.description === description)
    return 'unchanged';
  await http.postText(`variables/update/${doc.path}`, {
    ...(doc.value === undefined ? {} : { value: doc.value }),
    is_secret: doc.is_secret,
    description,
  });
  return 'updated';
}

async function pushScript(http: RegistryHttp, doc: ScriptDocument): Promise<PushOutcome> {
  const body = {
    path: doc.path,
    language: doc.language,
    content: doc.content,
    summary: doc.summary,
    description: doc.description ?? null,
    lock: doc.lock ?? null,
    schema: doc.schema ?? null,
  };
  const exists = await http.get(`scripts/exists/p/${doc.path}`, z.boolean());
  if (exists) {
    const current = await http.get(`scripts/get/p/${doc.path}`, ScriptSchema);
    const same =
      current.language === body.language &&
      current.content === body.content &&
      current.summary === body.summary &&
      current.description === body.description &&
      current.lock === body.lock &&
      jsonEqual(current.schema, body.schema);
    if (same) return 'unchanged';
  }
  // One route for both: it starts the path or saves its next version.
  await http.postText(`scripts/create`, body);
  return exists ? 'updated' : 'created';
}

async function pushFlow(http: RegistryHttp, doc: FlowDocument): Promise<PushOutcome> {
  const body = {
    summary: doc.summary,
    description: doc.description ?? null,
    value: doc.value,
    schema: doc.schema ?? null,
  };
  if (!(await http.get(`flows/exists/${doc.path}`, z.boolean()))) {
    await http.postText(`flows/create`, { path: doc.path, ...body });
    return 'created';
  }
  const current = await http.get(`flows/get/${doc.path}`, FlowSchema);
  const same =
    current.summary === body.summary &&
    current.description === body.description &&
    jsonEqual(current.value, body.value) &&
    jsonEqual(current.schema, body.schema);
  if (same) return 'unchanged';
  await http.postText(`flows/update/${doc.path}`, body);
  return 'updated';
}

/** A field the file leaves out matches what the mesh holds when that is unset, off or empty (`args: {}`). */
function sameField(given: unknown, held: unknown): boolean {
  if (given === undefined || given === null)
    return held === undefined || held === null || held === false || jsonEqual(held, {});
  return jsonEqual(given, held);
}

/**
 * A schedule is created, or updated (Windmill's edit: everything but its target) and enabled or
 * disabled as the file says. Its target cannot change in place: that is refused, as Windmill does.
 */
async function pushSchedule(http: RegistryHttp, doc: ScheduleDocument): Promise<PushOutcome> {
  const api = new SchedulesApi(http);
  const { kind: _kind, path, script_path, is_flow, enabled, ...edit } = doc;
  if (!(await api.exists(path))) {
    await api.create({ path, script_path, is_flow, enabled, ...edit });
    return 'created';
  }
  const current = await api.get(path);
  if (current.script_path !== script_path || current.is_flow !== is_flow) {
    const target = (flow: boolean, at: string) => `${flow ? 'flow' : 'script'} ${at}`;
    throw new RegistryRequestError(
      400,
      'VALIDATION_FAILED',
      `script_path: schedule ${path} runs ${target(current.is_flow, current.script_path)} in the mesh; the file says ${target(is_flow, script_path)} (a schedule's target does not change: delete it first)`,
    );
  }
  const held = current as unknown as Record<string, unknown>;
  const editChanged =
    Object.entries(edit).some(([field, value]) => !sameField(value, held[field])) ||
    SCHEDULE_EDIT_FIELDS.some((field) => !(field in edit) && !sameField(undefined, held[field]));
  const wantEnabled = enabled ?? true;
  if (editChanged) await api.update(path, edit);
  if (current.enabled !== wantEnabled) await api.setEnabled(path, wantEnabled);
  return editChanged || current.enabled !== wantEnabled ? 'updated' : 'unchanged';
}

/** What a schedule's edit sets: a field the file leaves out is cleared, as Windmill's edit does. */
const SCHEDULE_EDIT_FIELDS = [
  'args',
  'summary',
  'description',
  'on_failure',
  'on_failure_times',
  'on_failure_exact',
  'on_failure_extra_args',
  'on_recovery',
  'on_recovery_times',
  'on_recovery_extra_args',
  'on_success',
  'on_success_extra_args',
  'ws_error_handler_muted',
  'retry',
  'no_flow_overlap',
  'tag',
  'paused_until',
] as const;

/** A route is created or updated (its whole definition, as Windmill's edit); the same file twice writes nothing. */
async function pushHttpTrigger(http: RegistryHttp, doc: HttpTriggerDocument): Promise<PushOutcome> {
  const api = new HttpTriggersApi(http);
  const { kind: _kind, ...trigger } = doc;
  if (!(await api.exists(doc.path))) {
    await api.create(trigger);
    return 'created';
  }
  const current = await api.get(doc.path);
  const wanted = {
    route_path: trigger.route_path,
    script_path: trigger.script_path,
    is_flow: trigger.is_flow,
    http_method: trigger.http_method,
    authentication_method: trigger.authentication_method,
    authentication_resource_path: trigger.authentication_resource_path ?? null,
    request_type: trigger.request_type ?? (trigger.is_async ? 'async' : 'sync'),
    workspaced_route: trigger.workspaced_route ?? false,
    wrap_body: trigger.wrap_body ?? false,
    raw_string: trigger.raw_string ?? false,
    summary: trigger.summary ?? null,
    description: trigger.description ?? null,
    mode: trigger.mode ?? (trigger.enabled === false ? 'disabled' : 'enabled'),
  };
  const held = current as unknown as Record<string, unknown>;
  if (Object.entries(wanted).every(([field, value]) => jsonEqual(value, held[field] ?? null)))
    return 'unchanged';
  await api.update(doc.path, trigger);
  return 'updated';
}
