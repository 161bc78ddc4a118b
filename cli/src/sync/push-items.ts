import { FlowSchema, ResourceSchema, ScriptSchema, VariableSchema } from '@flowmesh/contracts';
import { z } from 'zod';
import type {
  FlowDocument,
  ItemDocument,
  ResourceDocument,
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
