export const REDACTED = '[REDACTED]';

/**
 * Keys whose value is a secret wherever they appear. Exact names only: `token` is a secret,
 * `input_tokens` and `max_tokens` are counts and must stay readable.
 */
export const SECRET_KEYS = [
  'password',
  'passwd',
  'secret',
  'clientSecret',
  'client_secret',
  'token',
  'accessToken',
  'access_token',
  'refreshToken',
  'refresh_token',
  'idToken',
  'id_token',
  'apiKey',
  'api_key',
  'x-api-key',
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'privateKey',
  'private_key',
] as const;

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');

// `"password":"..."` at any depth of a JSON line; the value pattern honours escaped quotes.
const SECRET_JSON_MEMBER = new RegExp(
  `"(${SECRET_KEYS.map(escapeRegExp).join('|')})":"(?:[^"\\\\]|\\\\.)*"`,
  'gi',
);

/**
 * Values that are secrets whatever key holds them (or inside free text). No pattern can
 * match `"` or `\`, so scrubbing a JSON line keeps it valid JSON.
 */
const SECRET_VALUES: ReadonlyArray<{ name: string; pattern: RegExp; replacement: string }> = [
  // Token characters must include a digit or symbol so prose ("Bearer authentication") survives.
  {
    name: 'bearer',
    pattern: /\bBearer\s+(?=[\w\-.~+/]*[\d\-.~+/])[\w\-.~+/]{8,}=*/gi,
    replacement: `Bearer ${REDACTED}`,
  },
  {
    name: 'basic',
    pattern: /\bBasic\s+(?=[A-Za-z0-9+/]*[\d+/=])[A-Za-z0-9+/]{8,}={0,2}/gi,
    replacement: `Basic ${REDACTED}`,
  },
  // OpenAI (`sk-`, `sk-proj-`), Anthropic (`sk-ant-`) and look-alike provider keys.
  { name: 'sk-key', pattern: /\bsk-[A-Za-z0-9_-]{20,}/g, replacement: REDACTED },
  // flowmesh API tokens (`fm_`) and job tokens (`fmj_<claims>.<signature>`); a digit is required so
  // identifiers such as `fm_outbox_message` survive.
  {
    name: 'flowmesh-token',
    pattern: /\bfmj?_(?=[A-Za-z_-]*\d)[A-Za-z0-9_-]{20,}(?:\.[A-Za-z0-9_-]{20,})?/g,
    replacement: REDACTED,
  },
  { name: 'jwt', pattern: /\beyJ[\w-]{5,}\.eyJ[\w-]{5,}\.[\w-]*/g, replacement: REDACTED },
  { name: 'github', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_\w{30,})/g, replacement: REDACTED },
  { name: 'aws-access-key', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, replacement: REDACTED },
  { name: 'slack', pattern: /\bxox[abprs]-[A-Za-z0-9-]{10,}/g, replacement: REDACTED },
  { name: 'google-api-key', pattern: /\bAIza[\w-]{35}/g, replacement: REDACTED },
  // `postgres://user:password@host`: keep the user and host, drop the password.
  {
    name: 'url-password',
    pattern: /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/?#@"\\]*):[^\s/?#@"\\]+@/gi,
    replacement: `$1:${REDACTED}@`,
  },
];

/** Replaces secret-looking values in free text (error messages, stack traces, log lines). */
export function scrubSecretValues(text: string): string {
  let out = text;
  for (const { pattern, replacement } of SECRET_VALUES) out = out.replace(pattern, replacement);
  return out;
}

/** A serialized JSON log line with secret members and secret-looking values replaced. */
export function scrubJsonLine(line: string): string {
  return scrubSecretValues(line.replace(SECRET_JSON_MEMBER, `"$1":"${REDACTED}"`));
}
