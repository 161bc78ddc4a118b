export interface AuthenticationCacheOptions<T> {
  /** Entries at most: a burst of distinct tokens starts the cache over rather than growing it. */
  readonly maxEntries?: number;
  /** When what a value says stops being true (epoch ms; null or undefined: never), e.g. the token's expiry. */
  readonly expiresAtMs?: (value: T) => number | null | undefined;
}

/**
 * Successful authentications, kept for a moment: most requests come in bursts from the same job,
 * script or user, and each would otherwise ask for the same answer again. Failures are never kept,
 * so a newly made token works at once. An entry lives for the time to live (0 turns the cache
 * off) and never past its own expiry (`expiresAtMs`, the token's). Whoever changes who someone is,
 * or hears of such a change (the registry's `evt.identity.*` events), calls `clear()`. Concurrent
 * misses of one key share one load (`loadOnce`), so an expiry under load is one ask, not one per
 * request in flight; a load begun before a `clear()` is neither joined nor kept afterwards.
 */
export class AuthenticationCache<T> {
  private readonly entries = new Map<string, { value: T; until: number }>();
  private readonly loading = new Map<string, Promise<T>>();
  private readonly maxEntries: number;
  private readonly expiresAtMs: (value: T) => number | null | undefined;
  private cleared = 0;

  constructor(
    private readonly ttlMs: number,
    options: AuthenticationCacheOptions<T> = {},
  ) {
    this.maxEntries = options.maxEntries ?? 10_000;
    this.expiresAtMs = options.expiresAtMs ?? (() => undefined);
  }

  get(key: string, nowMs: number): T | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.until > nowMs) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  /** False with a time to live of 0: then nothing is kept, nor shared between concurrent loads. */
  get enabled(): boolean {
    return this.ttlMs > 0;
  }

  /**
   * The load under way for `key`, or `load()` started and shared with whoever asks meanwhile; its
   * result is kept unless the cache is cleared before it ends. Off: just `load()`.
   */
  loadOnce(key: string, nowMs: number, load: () => Promise<T>): Promise<T> {
    if (!this.enabled) return load();
    const pending = this.loading.get(key);
    if (pending) return pending;
    const generation = this.cleared;
    const started = load().then((value) => {
      this.set(key, value, nowMs, generation);
      return value;
    });
    this.loading.set(key, started);
    const done = () => {
      if (this.loading.get(key) === started) this.loading.delete(key);
    };
    started.then(done, done);
    return started;
  }

  /** Changes with every `clear()`: take it before reading, hand it to `set`. */
  get generation(): number {
    return this.cleared;
  }

  /**
   * Keeps `value` unless the cache was cleared since `readSince` (the generation when the read
   * began): that read may have seen a token or a membership as it was before the change.
   */
  set(key: string, value: T, nowMs: number, readSince = this.cleared): void {
    if (!this.enabled || readSince !== this.cleared) return;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    const expires = this.expiresAtMs(value) ?? Infinity;
    this.entries.set(key, { value, until: Math.min(nowMs + this.ttlMs, expires) });
  }

  /** Forgets every entry (who someone is or what they may do changed). */
  clear(): void {
    this.cleared++;
    this.entries.clear();
    // A load already under way may have read the state before the change: nobody joins it now.
    this.loading.clear();
  }
}
