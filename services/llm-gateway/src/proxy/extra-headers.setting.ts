import { z } from 'zod';

/** Headers a configuration may not set: they belong to the HTTP connection, not the call. */
const CONNECTION_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
]);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Parses `FLOWMESH_GATEWAY_EXTRA_HEADERS`: a JSON object (`{"x-team":"ml"}`), or `Name: value`
 * pairs separated by `;` or new lines. Names are lowercased (so a resource's header of the same
 * name replaces this one whatever its case); connection headers are refused.
 */
export function parseExtraHeaders(text: string): { headers: Record<string, string> } | { problem: string } {
  const trimmed = text.trim();
  let entries: Array<[string, unknown]>;
  if (trimmed === '') return { headers: {} };
  if (trimmed.startsWith('{')) {
    try {
      entries = Object.entries(JSON.parse(trimmed) as Record<string, unknown>);
    } catch {
      return {
        problem: 'must be a JSON object of header names to values, or "Name: value" pairs separated by ";"',
      };
    }
  } else {
    entries = [];
    for (const pair of trimmed
      .split(/[;\n]/)
      .map((p) => p.trim())
      .filter(Boolean)) {
      const colon = pair.indexOf(':');
      // Not echoed: a malformed entry may be a value (a key) without its name.
      if (colon <= 0) return { problem: `entry ${entries.length + 1} is not a "Name: value" pair` };
      entries.push([pair.slice(0, colon).trim(), pair.slice(colon + 1).trim()]);
    }
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of entries) {
    const lower = name.toLowerCase();
    // Values are never echoed: a configured header may hold a key.
    if (!HEADER_NAME.test(name)) return { problem: `"${name}" is not a valid header name` };
    if (CONNECTION_HEADERS.has(lower))
      return { problem: `"${lower}" is a connection header and cannot be set` };
    if (typeof value !== 'string') return { problem: `the value of "${lower}" must be a string` };
    headers[lower] = value;
  }
  return { headers };
}

export const extraHeadersSetting = () =>
  z
    .string()
    .optional()
    .transform((value, ctx): Record<string, string> => {
      const parsed = parseExtraHeaders(value ?? '');
      if ('headers' in parsed) return parsed.headers;
      ctx.addIssue({ code: 'custom', message: parsed.problem });
      return z.NEVER;
    });
