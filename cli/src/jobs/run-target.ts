import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { parseOpenFlow, type SourceFormat } from '@flowmesh/contracts';

/** What `flowmesh run` was asked to run: a local OpenFlow file (a preview) or a saved flow's path. */
export type RunTarget =
  | {
      readonly kind: 'file';
      readonly file: string;
      readonly value: unknown;
      readonly defaults: Record<string, unknown>;
    }
  | { readonly kind: 'path'; readonly path: string };

export class RunTargetError extends Error {}

const FORMATS: Record<string, SourceFormat> = { '.json': 'json', '.yaml': 'yaml', '.yml': 'yaml' };

/** A name with a flow file's extension, or any existing file, is a file; anything else a path (`f/...`, `u/...`). */
export async function readRunTarget(target: string): Promise<RunTarget> {
  const format = FORMATS[extname(target).toLowerCase()];
  if (!format && !existsSync(target)) return { kind: 'path', path: target };
  let text: string;
  try {
    text = await readFile(target, 'utf8');
  } catch (error) {
    throw new RunTargetError(
      `cannot read ${target}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
  const parsed = parseOpenFlow(text, format ? { format } : {});
  if (!parsed.ok) {
    throw new RunTargetError(
      `${target} is not a valid flow:\n${parsed.errors.map((e) => `  ${e.path}: ${e.message}`).join('\n')}`,
    );
  }
  const schema = parsed.kind === 'openflow' ? parsed.flow.schema : undefined;
  return { kind: 'file', file: target, value: parsed.value, defaults: schemaDefaults(schema) };
}

/** The `default` of each top-level property of the flow's input schema, as a form would prefill it. */
function schemaDefaults(schema: Record<string, unknown> | undefined): Record<string, unknown> {
  const properties = schema?.properties;
  if (typeof properties !== 'object' || properties === null) return {};
  const defaults: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties as Record<string, unknown>)) {
    if (typeof property === 'object' && property !== null && 'default' in property) {
      defaults[name] = property.default;
    }
  }
  return defaults;
}
