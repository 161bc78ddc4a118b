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
 * and a script as its code file with a `<path>.script.yaml` sidecar. A secret variable's value
 * is not written: pushing the file back leaves the registry's value as it is.
 */
export async function pullItems(http: RegistryHttp, path: string, outDir: string): Promise<PulledItem[]> {
  const prefix = path.replace(/\/+$/, '');
  const under = (rows: readonly { readonly path: string }[]) =>
    rows.filter((row) => row.path === prefix || row.path.startsWith(`${prefix}/`)).map((row) => row.path);
  const query = `list?path_start=${encodeURIComponent(prefix)}`;
  const [resources, variables, scripts, flows] = await Promise.all([
    http.get(`resources/${query}`, z.array(ListedResourceSchema)).then(under),
    http.get(`variables/${query}`, z.array(VariableSchema)).then(under),
    http.get(`scripts/${query}`, z.array(ListedScriptSchema)).then(under),
    http.get(`flows/${query}`, z.array(ListedFlowSchema)).then(under),
  ]);
  if (resources.length + variables.length + scripts.length + flows.length === 0) {
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
  return pulled;
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
