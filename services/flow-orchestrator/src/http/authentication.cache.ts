import type { CallerIdentity } from '@flowmesh/contracts';

/**
 * Identities the registry vouched for, kept a moment: a CLI polling `getupdate` or a script
 * waiting on a result would otherwise ask the registry once per request. Failures are never
 * kept, so a newly made token works at once. The registry's `evt.identity.*` events (a token
 * revoked, a member, group or folder changed) clear it (`IdentityEventsListener`); without them a
 * revoked one works for at most the time to live (`FLOWMESH_AUTH_CACHE_MS`, 0 turns the cache off),
 * and never past the token's own expiry.
 */
export class AuthenticationCache {
  private readonly entries = new Map<string, { identity: CallerIdentity; until: number }>();
  private cleared = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get(key: string, nowMs: number): CallerIdentity | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.until > nowMs) return entry.identity;
    this.entries.delete(key);
    return undefined;
  }

  /** False with a time to live of 0: then nothing is kept, nor shared between concurrent asks. */
  get enabled(): boolean {
    return this.ttlMs > 0;
  }

  /** Changes with every `clear()`: take it before asking the registry, hand it to `set`. */
  get generation(): number {
    return this.cleared;
  }

  /**
   * Keeps `identity` unless the cache was cleared since `readSince` (the generation when the
   * registry was asked): that answer may describe the token or membership before the change.
   */
  set(key: string, identity: CallerIdentity, nowMs: number, readSince = this.cleared): void {
    if (this.ttlMs <= 0 || readSince !== this.cleared) return;
    // A burst of distinct tokens starts the cache over rather than growing it without bound.
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    const expires = identity.tokenExpiresAt ? Date.parse(identity.tokenExpiresAt) : Infinity;
    this.entries.set(key, { identity, until: Math.min(nowMs + this.ttlMs, expires) });
  }

  /** Forgets every identity (who someone is or what they may do changed). */
  clear(): void {
    this.cleared++;
    this.entries.clear();
  }
}
