import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import {
  countFlowModules,
  parseOpenFlow,
  type ParseOpenFlowResult,
  type SourceFormat,
} from '@flowmesh/contracts';

export interface FlowValidation {
  /** 0 valid, 1 invalid, 2 unreadable. */
  readonly exitCode: 0 | 1 | 2;
  /** One line for a valid flow; one `path: message` line per error; one reason when unreadable. */
  readonly lines: string[];
}

const FORMATS: Record<string, SourceFormat> = { '.json': 'json', '.yaml': 'yaml', '.yml': 'yaml' };

const READ_ERRORS: Record<string, string> = {
  ENOENT: 'no such file',
  EISDIR: 'it is a directory',
  EACCES: 'permission denied',
};

function unreadable(path: string, error: unknown): FlowValidation {
  const code = (error as NodeJS.ErrnoException).code;
  const reason = (code && READ_ERRORS[code]) ?? (error instanceof Error ? error.message : String(error));
  return { exitCode: 2, lines: [`cannot read ${path}: ${reason}`] };
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function summarize(result: Extract<ParseOpenFlowResult, { ok: true }>): string {
  const counts = countFlowModules(result.value);
  const what = result.kind === 'openflow' ? `OpenFlow ${JSON.stringify(result.flow.summary)}` : 'FlowValue';
  const types = [...counts.byType].map(([type, count]) => `${type} ${count}`).join(', ');
  const tools = counts.tools > 0 ? `, ${plural(counts.tools, 'agent tool')}` : '';
  return `valid ${what}: ${plural(counts.modules, 'module')}${types ? ` (${types})` : ''}${tools}`;
}

/**
 * Validates an OpenFlow file (a document `{summary, value}` or a bare FlowValue `{modules}`,
 * JSON or YAML by its extension, else by its first character).
 */
export async function validateFlowFile(path: string): Promise<FlowValidation> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    return unreadable(path, error);
  }
  const format = FORMATS[extname(path).toLowerCase()];
  const result = parseOpenFlow(text, format ? { format } : {});
  if (!result.ok)
    return { exitCode: 1, lines: result.errors.map((error) => `${error.path}: ${error.message}`) };
  return { exitCode: 0, lines: [summarize(result)] };
}
