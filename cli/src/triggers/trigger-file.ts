import { readFile } from 'node:fs/promises';
import { formatJsonPath } from '@flowmesh/contracts';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { RegistryRequestError } from '../sync/registry-connection.js';

/**
 * A trigger file (YAML or JSON, the same file `flowmesh push` reads) parsed by `schema`, its
 * `kind` filled in when the file leaves it out. Every problem is one line `file: field: reason`,
 * all of them at once, thrown as a VALIDATION_FAILED error before anything is sent.
 */
export async function readTriggerFile<S extends z.ZodType>(
  file: string,
  kind: string,
  schema: S,
): Promise<z.output<S>> {
  let raw: unknown;
  try {
    raw = parseYaml(await readFile(file, 'utf8'));
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new RegistryRequestError(
      0,
      'VALIDATION_FAILED',
      `${file}: cannot be read as YAML or JSON: ${reason}`,
    );
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new RegistryRequestError(0, 'VALIDATION_FAILED', `${file}: must hold an object of ${kind} fields`);
  const parsed = schema.safeParse({ kind, ...raw });
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map(
    (issue) => `${file}: ${formatJsonPath(issue.path)}: ${issue.message}`,
  );
  throw new RegistryRequestError(0, 'VALIDATION_FAILED', lines.join('\n'));
}
