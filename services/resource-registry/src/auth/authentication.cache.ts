import type { Authenticated } from './authenticated.js';

/**
 * Successful authentications, kept for a moment: every registry request authenticates, and most
 * come in bursts from the same job or user. Failures are never kept. Writes that change who someone
 * is (membership, groups, admin flag, a revoked token) clear it at once in this process; another
 * replica sees them within the time to live (`FLOWMESH_AUTH_CACHE_MS`, 0 turns it off).
 * Concurrent misses of one key share one load, so an expiry under load is one query, not one per
 * request in flight.
 */
export class AuthenticationCache {
  private readonly entries = new Map<string, { value: Authenticated; until: number }>();
  private readonly loading = new Map<string, Promise<Authenticated>>();
  private cleared = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get(key: string, nowMs: number): Authenticated | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.until > nowMs) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  /**
   * The load under way for `key`, or `load()` started and shared with whoever asks meanwhile; its
   * result is kept unless the cache is cleared before it ends. Off (`ttlMs` 0): just `load()`.
   */
  loadOnce(key: string, nowMs: number, load: () => Promise<Authenticated>): Promise<Authenticated> {
    if (this.ttlMs <= 0) return load();
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
  set(key: string, value: Authenticated, nowMs: number, readSince = this.cleared): void {
    if (this.ttlMs <= 0 || readSince !== this.cleared) return;
    // Simple bound: a burst of distinct tokens starts the cache over rather than growing it.
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { value, until: nowMs + this.ttlMs });
  }

  clear(): void {
    this.cleared++;
    this.entries.clear();
    // A load already under way may have read the state before the change: nobody joins it now.
    this.loading.clear();
  }
}
