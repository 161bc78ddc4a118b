import { findOutboundRefusal, type OutboundFetch } from '@flowmesh/outbound';
import { freshForMs, type MediaCache } from './media-cache.js';

/** Why a URL gave no usable file: a sentence that completes "<field>: ...", naming no content. */
export class MediaFetchFailure extends Error {
  constructor(readonly problem: string) {
    super(problem);
    this.name = 'MediaFetchFailure';
  }
}

/** What the files of one request may still add up to; shared by its parallel fetches. */
export class ByteBudget {
  constructor(
    private remaining: number,
    readonly limit: number,
  ) {}

  take(bytes: number): boolean {
    this.remaining -= bytes;
    return this.remaining >= 0;
  }
}

export interface FetchedMedia {
  /** Judged from the bytes, not from what the server said. */
  readonly mediaType: string;
  readonly data: Buffer;
}

export interface MediaFetcherOptions {
  /** The SSRF-guarded fetch (`createOutboundFetch`): every hop and every address checked. */
  readonly fetch: OutboundFetch;
  readonly maxBytes: number;
  readonly timeoutMs: number;
  /** Files kept for later requests of a workspace (none: every request fetches). */
  readonly cache?: MediaCache;
}

/** Types a server may send for bytes it does not describe; the bytes then decide. */
const GENERIC_TYPES = new Set([
  '',
  'application/octet-stream',
  'binary/octet-stream',
  'application/x-download',
]);
const TYPE_ALIASES: Record<string, string> = { 'image/jpg': 'image/jpeg', 'image/pjpeg': 'image/jpeg' };

/**
 * Fetches one image or PDF for a chat part: through the SSRF guard (redirects re-checked), within
 * a time limit, a size limit per file and the request's byte budget, and only when the bytes are
 * one of the `accepted` types (a declared type outside them is refused before the body is read).
 * Fails with `MediaFetchFailure`; a caller's abort rejects with the abort reason.
 */
export class MediaFetcher {
  constructor(private readonly options: MediaFetcherOptions) {}

  async fetch(
    url: string,
    accepted: readonly string[],
    budget: ByteBudget,
    signal?: AbortSignal,
    scope = '',
  ): Promise<FetchedMedia> {
    const cached = this.options.cache?.get(scope, url);
    if (cached) {
      if (!accepted.includes(cached.mediaType)) {
        throw new MediaFetchFailure(`is ${cached.mediaType}, not ${oneOf(accepted)}`);
      }
      if (!budget.take(cached.data.length)) throw overBudget(budget);
      return cached;
    }
    const { media, freshFor } = await this.download(url, accepted, budget, signal);
    this.options.cache?.set(scope, url, media, freshFor);
    return media;
  }

  private async download(
    url: string,
    accepted: readonly string[],
    budget: ByteBudget,
    signal?: AbortSignal,
  ): Promise<{ media: FetchedMedia; freshFor: number | undefined }> {
    const host = hostOf(url);
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    try {
      const response = await this.options.fetch(url, {
        headers: { accept: `${accepted.join(', ')};q=1, */*;q=0.1`, 'user-agent': 'flowmesh-llm-gateway' },
        signal: combined,
      });
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        throw new MediaFetchFailure(`could not be fetched: ${host} answered HTTP ${response.status}`);
      }
      const declared = declaredType(response.headers.get('content-type'));
      if (!GENERIC_TYPES.has(declared) && !accepted.includes(declared)) {
        await response.body?.cancel().catch(() => undefined);
        throw new MediaFetchFailure(`is ${declared}, not ${oneOf(accepted)}`);
      }
      const length = Number(response.headers.get('content-length') ?? Number.NaN);
      if (length > this.options.maxBytes) {
        await response.body?.cancel().catch(() => undefined);
        throw this.tooLarge();
      }
      const data = await this.read(response.body, budget);
      if (data.length === 0) throw new MediaFetchFailure('is empty');
      const sniffed = sniffMediaType(data);
      if (sniffed === undefined) {
        throw new MediaFetchFailure(
          `is not ${oneOf(accepted)}: its bytes are none of them${declared ? ` (the server said ${declared})` : ''}`,
        );
      }
      if (!accepted.includes(sniffed)) throw new MediaFetchFailure(`is ${sniffed}, not ${oneOf(accepted)}`);
      return {
        media: { mediaType: sniffed, data },
        freshFor: freshForMs(response.headers.get('cache-control')),
      };
    } catch (error) {
      if (error instanceof MediaFetchFailure) throw error;
      if (signal?.aborted) throw signal.reason;
      if (timeout.aborted)
        throw new MediaFetchFailure(`could not be fetched from ${host} within ${this.options.timeoutMs} ms`);
      const refusal = findOutboundRefusal(error);
      if (refusal)
        throw new MediaFetchFailure(
          refusal.reason === 'redirect_limit'
            ? `could not be fetched: ${host} redirected too many times`
            : `refused: "${refusal.host}" is not an address the gateway may fetch from (FLOWMESH_OUTBOUND_ALLOW_CIDRS)`,
        );
      throw new MediaFetchFailure(`could not be fetched: ${host} is unreachable (${causeCode(error)})`);
    }
  }

  private async read(body: ReadableStream<Uint8Array> | null, budget: ByteBudget): Promise<Buffer> {
    if (!body) return Buffer.alloc(0);
    const chunks: Uint8Array[] = [];
    let total = 0;
    const reader = body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > this.options.maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw this.tooLarge();
      }
      if (!budget.take(value.byteLength)) {
        await reader.cancel().catch(() => undefined);
        throw overBudget(budget);
      }
      chunks.push(value);
    }
    return Buffer.concat(chunks, total);
  }

  private tooLarge(): MediaFetchFailure {
    return new MediaFetchFailure(
      `is larger than ${this.options.maxBytes} bytes (FLOWMESH_GATEWAY_MAX_MEDIA_BYTES)`,
    );
  }
}

function overBudget(budget: ByteBudget): MediaFetchFailure {
  return new MediaFetchFailure(
    `is over the limit: the files of one request may add up to ${budget.limit} bytes (FLOWMESH_GATEWAY_MAX_BODY_BYTES)`,
  );
}

/** The media type the bytes are, among those a URL part may be; undefined for anything else. */
export function sniffMediaType(data: Uint8Array): string | undefined {
  const starts = (...bytes: number[]) => bytes.every((byte, index) => data[index] === byte);
  const ascii = (from: number, text: string) =>
    [...text].every((char, index) => data[from + index] === char.charCodeAt(0));
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (ascii(0, 'GIF87a') || ascii(0, 'GIF89a')) return 'image/gif';
  if (ascii(0, 'RIFF') && ascii(8, 'WEBP')) return 'image/webp';
  // PDF readers accept the header anywhere in the first 1024 bytes.
  if (Buffer.from(data.subarray(0, 1024)).includes('%PDF-')) return 'application/pdf';
  return undefined;
}

function declaredType(header: string | null): string {
  const type = (header ?? '').split(';')[0].trim().toLowerCase();
  return TYPE_ALIASES[type] ?? type;
}

function oneOf(types: readonly string[]): string {
  return types.length === 1 ? types[0] : `${types.slice(0, -1).join(', ')} or ${types.at(-1)!}`;
}

/** The host as the caller wrote it: never the path or query (a signed URL's token stays out). */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(invalid URL)';
  }
}

/** A system error code (ECONNREFUSED, ENOTFOUND, a TLS code) from fetch's cause chain. */
function causeCode(error: unknown): string {
  for (let current = error, depth = 0; current && depth < 6; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return 'connection failed';
}
