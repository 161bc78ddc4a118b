import { SECRET_KEYS } from './secret-scrubber.js';

const HEADER_KEYS = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key'];

function member(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `["${key}"]`;
}

/**
 * pino's structural redaction: every secret key at the top level and two levels down
 * (`{ password }`, `{ user: { password } }`, `{ req: { body: { password } } }`), which also
 * catches non-string values the line scrubber cannot see; plus request/response headers.
 */
export function secretRedactPaths(): string[] {
  const paths: string[] = [];
  for (const key of SECRET_KEYS) {
    const tail = member(key);
    paths.push(tail.startsWith('.') ? key : tail, `*${tail}`, `*.*${tail}`);
  }
  for (const key of HEADER_KEYS) paths.push(`*.*.headers${member(key)}`);
  return paths;
}
