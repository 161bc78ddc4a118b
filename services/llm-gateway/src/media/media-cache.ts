import type { FetchedMedia } from './media-fetcher.js';

interface Entry {
  readonly media: FetchedMedia;
  readonly expiresAt: number;
}

/**
 * Files fetched by URL, kept for later requests of the same workspace: an agent sends its whole
 * conversation, the same image URLs included, on every turn. At most `maxBytes` in all (the least
 * recently used go first), each for `ttlMs` at most, or less when the server said so
 * (`Cache-Control: max-age`), and never what it said not to keep (`no-store`, `no-cache`).
 * Workspaces do not share entries: one cannot learn from timing which files another uses.
 */
export class MediaCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  get(scope: string, url: string): FetchedMedia | undefined {
    const key = keyOf(scope, url);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.drop(key, entry);
    if (entry.expiresAt <= this.now()) return undefined;
    this.add(key, entry);
    return entry.media;
  }

  /** `freshForMs`: how long the server let it be kept (undefined: it did not say). */
  set(scope: string, url: string, media: FetchedMedia, freshForMs: number | undefined): void {
    const ttl = Math.min(this.ttlMs, freshForMs ?? Number.POSITIVE_INFINITY);
    const size = media.data.length;
    if (ttl <= 0 || size > this.maxBytes) return;
    const key = keyOf(scope, url);
    const old = this.entries.get(key);
    if (old) this.drop(key, old);
    for (const [oldest, entry] of this.entries) {
      if (this.bytes + size <= this.maxBytes) break;
      this.drop(oldest, entry);
    }
    this.add(key, { media, expiresAt: this.now() + ttl });
  }

  private add(key: string, entry: Entry): void {
    this.entries.set(key, entry);
    this.bytes += entry.media.data.length;
  }

  private drop(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.bytes -= entry.media.data.length;
  }
}

const keyOf = (scope: string, url: string) => `${scope}\u0000${url}`;

/** How long a response may be kept by its `Cache-Control` (0: not at all; undefined: not said). */
export function freshForMs(cacheControl: string | null): number | undefined {
  if (!cacheControl) return undefined;
  const directives = cacheControl
    .toLowerCase()
    .split(',')
    .map((directive) => directive.trim());
  if (directives.some((directive) => directive === 'no-store' || directive === 'no-cache')) return 0;
  const maxAge = directives.find((directive) => directive.startsWith('max-age='));
  const seconds = maxAge === undefined ? Number.NaN : Number(maxAge.slice('max-age='.length));
  return Number.isFinite(seconds) ? Math.max(0, seconds) * 1000 : undefined;
}
