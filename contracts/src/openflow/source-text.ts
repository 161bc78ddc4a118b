import { parseDocument } from 'yaml';
import type { ValidationIssue } from '../errors.js';
import { jsonErrorOffset } from './json-error-offset.js';

export type SourceFormat = 'json' | 'yaml';

export type SourceTextResult = { ok: true; data: unknown } | { ok: false; error: ValidationIssue };

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

function syntaxError(format: SourceFormat, line: number, column: number, message: string): SourceTextResult {
  const sentence = message.charAt(0).toLowerCase() + message.slice(1);
  const where = `line ${line}, column ${column}`;
  return {
    ok: false,
    error: { path: '(root)', message: `invalid ${format.toUpperCase()} at ${where}: ${sentence}` },
  };
}

function readJson(text: string): SourceTextResult {
  try {
    return { ok: true, data: JSON.parse(text) };
  } catch (error) {
    const raw = error instanceof Error ? error.message : String(error);
    // V8 adds where it failed, and for "Unexpected token" a quote of the text: we say where ourselves.
    const message = raw.replace(/ in JSON at position \d+.*$/s, '').replace(/, .*is not valid JSON$/s, '');
    const offset = jsonErrorOffset(text);
    const { line, column } = lineAndColumn(text, offset < 0 ? text.length : offset);
    return syntaxError('json', line, column, message);
  }
}

function readYaml(text: string): SourceTextResult {
  const document = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  const first = document.errors[0];
  if (first) {
    const position = first.linePos?.[0] ?? { line: 1, col: 1 };
    const message = first.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
    return syntaxError('yaml', position.line, position.col, message);
  }
  try {
    return { ok: true, data: document.toJS({ maxAliasCount: 1000 }) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, error: { path: '(root)', message: `invalid YAML: ${message}` } };
  }
}

/**
 * Reads JSON or YAML text into data. Without a format, text that opens with `{` or `[` is
 * JSON, anything else YAML. A syntax error is one issue naming the line and column.
 */
export function readSourceText(text: string, format?: SourceFormat): SourceTextResult {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const chosen = format ?? (/^\s*[[{]/.test(body) ? 'json' : 'yaml');
  return chosen === 'json' ? readJson(body) : readYaml(body);
}
