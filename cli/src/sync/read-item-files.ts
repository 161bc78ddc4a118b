import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, extname, join, relative, sep } from 'node:path';
import { formatJsonPath } from '@flowmesh/contracts';
import { parse as parseYaml } from 'yaml';
import {
  ItemDocumentSchema,
  SCRIPT_EXTENSIONS,
  type ItemDocument,
  type ScriptDocumentInput,
} from './item-document.js';

export interface ItemFile {
  /** The file the item was read from (the sidecar, for a script in a code file). */
  readonly file: string;
  readonly document: ItemDocument;
}

export interface ReadItemFiles {
  readonly items: ItemFile[];
  /** One line per problem (`file: field: reason`); when there is any, nothing should be pushed. */
  readonly problems: string[];
}

const DATA_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);
const SIDECAR = /\.script\.(ya?ml|json)$/;
/** Windmill's file names for triggers (`wmill sync`), which say the kind and, by their place, the path. */
const TRIGGER_FILE = /\.(schedule|http_trigger)\.(ya?ml|json)$/;

/**
 * Item files from files and directories (walked recursively). A YAML or JSON file is one item
 * and says which (`kind:`); a code file is a script when a sidecar `<name>.script.yaml` beside
 * it says `kind: script` and its path. Every problem of every file is reported at once.
 */
export async function readItemFiles(inputs: readonly string[]): Promise<ReadItemFiles> {
  const problems: string[] = [];
  /** Each file and the directory given that holds it (a Windmill trigger file's path is its place there). */
  const dataFiles = new Map<string, string>();
  for (const input of inputs) {
    let info;
    try {
      info = await stat(input);
    } catch {
      problems.push(`${input}: no such file or directory`);
      continue;
    }
    if (info.isDirectory()) {
      for (const file of await walk(input))
        if (DATA_EXTENSIONS.has(extname(file))) dataFiles.set(file, input);
    } else if (DATA_EXTENSIONS.has(extname(input))) {
      dataFiles.set(input, '.');
    } else if (extname(input) in SCRIPT_EXTENSIONS) {
      const sidecar = await findSidecar(input);
      if (sidecar) dataFiles.set(sidecar, '.');
      else
        problems.push(
          `${input}: a script file needs a sidecar ${stem(input)}.script.yaml beside it (kind: script, path: ...)`,
        );
    } else {
      problems.push(
        `${input}: not an item file (.yaml, .yml or .json, or a script with a .script.yaml sidecar)`,
      );
    }
  }

  const items: ItemFile[] = [];
  const seen = new Map<string, string>();
  for (const [file, root] of [...dataFiles].sort(([a], [b]) => a.localeCompare(b))) {
    const document = await readDocument(file, root, problems);
    if (!document) continue;
    const key = `${document.kind} ${document.path}`;
    const first = seen.get(key);
    if (first) {
      problems.push(`${file}: ${key} is also in ${first}`);
      continue;
    }
    seen.set(key, file);
    items.push({ file, document });
  }
  return { items, problems };
}

async function readDocument(
  file: string,
  root: string,
  problems: string[],
): Promise<ItemDocument | undefined> {
  let raw: unknown;
  try {
    raw = parseYaml(await readFile(file, 'utf8'));
  } catch (error) {
    problems.push(
      `${file}: cannot be read as YAML or JSON: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
    );
    return undefined;
  }
  raw = asWindmillTriggerFile(file, root, raw);
  if (typeof raw !== 'object' || raw === null || !('kind' in raw)) {
    problems.push(
      `${file}: does not say what it is: add kind: resource, variable, script, flow, schedule or http_trigger`,
    );
    return undefined;
  }
  const parsed = ItemDocumentSchema.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues)
      problems.push(`${file}: ${formatJsonPath(issue.path)}: ${issue.message}`);
    return undefined;
  }
  const document = parsed.data;
  if (document.kind !== 'script') return document;
  return completeScript(file, document, problems);
}

/** A script's content and language from the code file beside its sidecar, when the sidecar has none. */
async function completeScript(
  file: string,
  document: ScriptDocumentInput,
  problems: string[],
): Promise<ItemDocument | undefined> {
  let { content, language } = document;
  if (content === undefined) {
    if (!SIDECAR.test(file)) {
      problems.push(
        `${file}: content: is required (or name the file <name>.script.yaml and put the code in <name>.ts, .py, ...)`,
      );
      return undefined;
    }
    const codeFiles = await siblingsWithCode(file);
    if (codeFiles.length !== 1) {
      const base = basename(file).replace(SIDECAR, '');
      problems.push(
        codeFiles.length === 0
          ? `${file}: content: no code file ${base}.ts (or .py, .sh, ...) beside it`
          : `${file}: content: more than one code file beside it (${codeFiles.map((f) => basename(f)).join(', ')})`,
      );
      return undefined;
    }
    const codeFile = codeFiles[0];
    content = await readFile(codeFile, 'utf8');
    language ??= SCRIPT_EXTENSIONS[extname(codeFile)];
  }
  if (language === undefined) {
    problems.push(`${file}: language: is required`);
    return undefined;
  }
  return { ...document, content, language };
}

async function siblingsWithCode(sidecar: string): Promise<string[]> {
  const base = basename(sidecar).replace(SIDECAR, '');
  const names = await readdir(dirname(sidecar));
  return names
    .filter((name) => extname(name) in SCRIPT_EXTENSIONS && basename(name, extname(name)) === base)
    .map((name) => join(dirname(sidecar), name));
}

async function findSidecar(codeFile: string): Promise<string | undefined> {
  for (const ext of ['yaml', 'yml', 'json']) {
    const candidate = join(dirname(codeFile), `${stem(codeFile)}.script.${ext}`);
    if (
      await stat(candidate).then(
        (s) => s.isFile(),
        () => false,
      )
    )
      return candidate;
  }
  return undefined;
}

/**
 * A trigger file as `wmill sync pull` writes it (`f/ops/nightly.schedule.yaml`, no `kind`, no
 * `path`): the kind from its name, the path from its place under the directory pushed (or the
 * current one), the fields only the server sets left out, so Windmill's files push unchanged. A
 * file that says its `kind` is read as written.
 */
function asWindmillTriggerFile(file: string, root: string, raw: unknown): unknown {
  const match = TRIGGER_FILE.exec(file);
  if (!match || typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
  if ('kind' in raw) return raw;
  const path = relative(root, file).slice(0, -match[0].length).split(sep).join('/');
  const settable = Object.entries(raw).filter(([field]) => !SERVER_FIELDS.has(field));
  return { kind: match[1], path, ...Object.fromEntries(settable) };
}

/** What the mesh answers about a trigger but nobody sets: left out of a Windmill file, not refused. */
const SERVER_FIELDS = new Set([
  'workspace_id',
  'edited_by',
  'edited_at',
  'email',
  'extra_perms',
  'permissioned_as',
  'error',
  'route_path_key',
]);

function stem(file: string): string {
  return basename(file, extname(file));
}

async function walk(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await walk(full)));
    else if (entry.isFile()) files.push(full);
  }
  return files;
}
