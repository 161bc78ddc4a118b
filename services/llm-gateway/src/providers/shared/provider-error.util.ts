import type { ProviderError, ProviderErrorClass } from '@flowmesh/contracts';
import type { ResponseHeaders } from '../provider-adapter.js';

/**
 * Provider messages that mean "the prompt does not fit the model's context window", across
 * vendors (exact strings in `reference/provider-wire-formats.md` §7). Matched only against the
 * message of a structured (JSON) error body, never against a raw body: an HTML error page must
 * not turn an outage into a context error.
 */
export const CONTEXT_EXCEEDED_PATTERNS: readonly RegExp[] = [
  /maximum context length/i,
  /context[_ ]length[_ ]exceeded/i,
  /prompt is too long/i,
  /exceed(s|ed)? (the )?context (limit|window)/i,
  /input (token count|length) .* exceeds the maximum/i,
  /too large for model with \d+ maximum context length/i,
  /longer than the model's context length/i,
  /reduce the length of the messages/i,
  /input is too long for requested model/i,
];

/** Messages that name a model the provider does not serve: one list, with the fault classifier's. */
export { MODEL_UNAVAILABLE_PATTERNS } from '@flowmesh/contracts';

export function matchesAny(text: string | undefined, patterns: readonly RegExp[]): boolean {
  return text !== undefined && patterns.some((pattern) => pattern.test(text));
}

const MAX_WAIT_HEADER_MS = 24 * 60 * 60 * 1000;

/**
 * How long the provider asks us to wait: `retry-after-ms` / `x-ms-retry-after-ms` (Azure,
 * OpenAI) first, then `retry-after` in seconds or as an HTTP date.
 */
export function retryAfterMs(headers: ResponseHeaders, now: number = Date.now()): number | undefined {
  for (const name of ['retry-after-ms', 'x-ms-retry-after-ms']) {
    const value = Number(headers[name]);
    if (headers[name] !== undefined && Number.isFinite(value) && value >= 0)
      return Math.min(Math.round(value), MAX_WAIT_HEADER_MS);
  }
  const header = headers['retry-after'];
  if (header === undefined || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0)
    return Math.min(Math.round(seconds * 1000), MAX_WAIT_HEADER_MS);
  const date = Date.parse(header);
  if (Number.isNaN(date)) return undefined;
  return Math.min(Math.max(0, date - now), MAX_WAIT_HEADER_MS);
}

/** Parses a body as JSON; `undefined` when it is not JSON (an HTML error page, a proxy's text). */
export function parseJsonBody(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

const SECRET_SHAPES: readonly RegExp[] = [
  /\b(sk|pk|rk)-[A-Za-z0-9_*.-]{6,}/g,
  /\bBearer\s+[A-Za-z0-9._~+/=-]+/gi,
  /\bAKIA[A-Z0-9]{12,}\b/g,
  /\bAIza[A-Za-z0-9_-]{20,}\b/g,
  /(api[-_ ]?key|access[-_ ]?token|secret)(\s*[:=]\s*|\s+)["']?[A-Za-z0-9._*~+/=-]{8,}/gi,
];

/**
 * A provider's own error message made fit for our errors and logs: one line, bounded, with
 * anything shaped like a credential removed (OpenAI's 401 quotes a masked key, for one).
 */
export function safeProviderMessage(message: string | undefined, max = 400): string | undefined {
  if (message === undefined) return undefined;
  let text = message.replace(/\s+/g, ' ').trim();
  for (const shape of SECRET_SHAPES) text = text.replace(shape, '[redacted]');
  if (text.length > max) text = `${text.slice(0, max)}…`;
  return text || undefined;
}

/** A classified error with the shared wording (`<vendor> answered <status>: <their message>`). */
export function classified(
  errorClass: ProviderErrorClass,
  vendor: string,
  status: number,
  providerMessage: string | undefined,
  extra: Omit<ProviderError, 'class' | 'message' | 'status'> = {},
): ProviderError {
  const detail =
    errorClass === 'auth_failed'
      ? 'the provider rejected the credentials of the provider resource'
      : providerMessage;
  const message = `${vendor} answered ${status}${detail ? `: ${detail}` : ''}`;
  return { class: errorClass, message, status, ...extra };
}
