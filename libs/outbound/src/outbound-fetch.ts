import { isIP } from 'node:net';
import { fetch, type Dispatcher, type RequestInit, type Response } from 'undici';
import { normalizeHostName, type OutboundPolicy } from './outbound-policy.js';
import { findOutboundRefusal, OutboundRefusedError } from './outbound-refused.error.js';

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * Headers that carry credentials, dropped when a redirect leaves the origin (the Fetch spec
 * drops only `authorization`; provider keys travel in the others).
 */
const CREDENTIAL_HEADERS = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'x-api-key',
  'api-key',
  'x-goog-api-key',
];

export interface OutboundFetchOptions {
  readonly policy: OutboundPolicy;
  /** The guarded dispatcher (`createOutboundDispatcher`): it checks each address it connects to. */
  readonly dispatcher: Dispatcher;
  /** Redirects followed before giving up (default 5); 0 refuses every redirect. */
  readonly maxRedirects?: number;
  /** More header names to drop on a cross-origin redirect. */
  readonly credentialHeaders?: readonly string[];
}

export type OutboundFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * `fetch` for user-given URLs: only http and https, every hop re-checked (redirects are
 * followed here, `redirect: 'manual'`, each new URL judged before it is requested and its
 * address judged again by the dispatcher when it connects), credentials dropped when a redirect
 * changes origin. A refusal rejects with `OutboundRefusedError`, not fetch's bare TypeError.
 */
export function createOutboundFetch(options: OutboundFetchOptions): OutboundFetch {
  const maxRedirects = options.maxRedirects ?? 5;
  const dropOnCrossOrigin = [
    ...CREDENTIAL_HEADERS,
    ...(options.credentialHeaders ?? []).map((h) => h.toLowerCase()),
  ];

  return async (input, init = {}) => {
    let url = checkedUrl(options.policy, input);
    let method = (init.method ?? 'GET').toUpperCase();
    let body = init.body;
    const headers = new Headers(init.headers);
    for (let hop = 0; ; hop++) {
      const response = await fetchOnce(url, {
        ...init,
        method,
        headers: headers as unknown as RequestInit['headers'],
        body: body ?? null,
        redirect: 'manual',
        dispatcher: options.dispatcher,
      });
      const location = response.headers.get('location');
      if (!REDIRECT_STATUSES.has(response.status) || location === null) return response;
      await response.body?.cancel().catch(() => undefined);
      if (hop >= maxRedirects) throw new OutboundRefusedError(url.hostname, 'redirect_limit');

      const next = checkedUrl(options.policy, new URL(location, url));
      if (
        response.status === 303 ||
        ((response.status === 301 || response.status === 302) && method === 'POST')
      ) {
        method = method === 'HEAD' ? 'HEAD' : 'GET';
        body = null;
        for (const name of ['content-type', 'content-length', 'content-encoding', 'content-language'])
          headers.delete(name);
      } else if (body != null && !isReplayable(body)) {
        throw new Error(`cannot follow a ${response.status} redirect with a streamed request body`);
      }
      if (next.origin !== url.origin) for (const name of dropOnCrossOrigin) headers.delete(name);
      url = next;
    }
  };
}

async function fetchOnce(url: URL, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    throw findOutboundRefusal(error) ?? error;
  }
}

/**
 * A URL as the guard accepts it: http(s), a host, not a metadata name, not a refused IP literal.
 * Names are judged when the dispatcher resolves them at connect.
 */
export function checkedUrl(policy: OutboundPolicy, input: string | URL): URL {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    // The text is not echoed: a malformed URL may still hold a key.
    throw new OutboundRefusedError('(invalid URL)', 'invalid_url');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new OutboundRefusedError(url.host, 'scheme');
  if (!url.hostname) throw new OutboundRefusedError(url.host, 'invalid_url');
  const host = normalizeHostName(url.hostname);
  if (policy.isRefusedHostName(host)) throw new OutboundRefusedError(url.hostname, 'metadata_host');
  if (isIP(host) !== 0) policy.assertAddress(url.hostname, host);
  return url;
}

function isReplayable(body: NonNullable<RequestInit['body']>): boolean {
  return (
    typeof body === 'string' ||
    body instanceof Uint8Array ||
    body instanceof ArrayBuffer ||
    body instanceof URLSearchParams
  );
}
