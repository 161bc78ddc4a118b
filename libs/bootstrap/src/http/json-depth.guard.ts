import type { IncomingMessage, ServerResponse } from 'node:http';
import { loneSurrogateError, type ErrorEnvelope } from '@flowmesh/contracts';

/** How deep a request's JSON may nest (serde_json's limit, so Windmill's clients never hit ours first). */
export const MAX_JSON_DEPTH = 128;

/**
 * How deep `value` nests (a scalar is 0, `[]` and `{}` are 1), walked without recursion so a
 * hostile document cannot overflow the stack; stops counting past `limit`.
 */
export function jsonDepth(value: unknown, limit = MAX_JSON_DEPTH): number {
  let deepest = 0;
  const pending: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (pending.length > 0) {
    const { value: next, depth } = pending.pop()!;
    if (typeof next !== 'object' || next === null) continue;
    const here = depth + 1;
    if (here > deepest) deepest = here;
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(next) ? next : Object.values(next))
      if (typeof child === 'object' && child !== null) pending.push({ value: child, depth: here });
  }
  return deepest;
}

/**
 * Refuses a JSON body nested deeper than `MAX_JSON_DEPTH`, or holding a string with a lone UTF-16
 * surrogate (which PostgreSQL would refuse at the first write, a 500), with 400 and the mesh's
 * error envelope, before any handler (or encoder) walks it recursively. Registered after the JSON
 * parser.
 */
export function jsonDepthGuard(limit = MAX_JSON_DEPTH) {
  return (req: IncomingMessage & { body?: unknown }, res: ServerResponse, next: () => void): void => {
    if (req.body === undefined) {
      next();
      return;
    }
    if (jsonDepth(req.body, limit) > limit) {
      refuse(res, { code: 'VALIDATION_FAILED', message: `the JSON body nests deeper than ${limit} levels` });
      return;
    }
    const surrogate = loneSurrogateError('request body', req.body);
    if (surrogate) {
      refuse(res, surrogate.toEnvelope());
      return;
    }
    next();
  };
}

function refuse(res: ServerResponse, envelope: ErrorEnvelope): void {
  res.statusCode = 400;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.end(JSON.stringify(envelope));
}
