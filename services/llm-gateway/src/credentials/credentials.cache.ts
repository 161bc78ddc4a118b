import { hash } from 'node:crypto';

/** What one resolution produced, kept until it expires or the registry says it changed. */
export interface CachedCredentials<T> {
  readonly value: T;
  readonly expiresAt: number;
}

export interface CredentialsCacheOptions<T = unknown> {
  readonly ttlMs: number;
  /** Entries kept at most; the oldest go first. */
  readonly maxEntries: number;
  readonly now?: () => number;
  /**
   * When a resolved value stops being valid on its own (the caller's token expires), epoch ms;
   * an entry is kept no longer than that. Undefined: only the time to live.
   */
  readonly validUntil?: (value: T) => number | undefined;
}

interface Entry<T> {
  readonly value: T;
  readonly expiresAt: number;
  readonly scope: string;
  readonly workspace: string;
}

/**
 * Resolved credentials per (workspace, resource path, caller), with an expiry. The caller is
 * keyed by a hash of its token, so the cache never holds a token. Concurrent misses for one key
 * share one resolution. An invalidation that lands while a resolution is in flight wins: the
 * generation of the resource (and of its workspace) is taken before resolving, and a result
 * resolved under an older generation is handed to its callers but never stored.
 */
export class CredentialsCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private readonly inflight = new Map<string, Promise<T>>();
  private readonly generations = new Map<string, number>();
  private readonly now: () => number;

  constructor(private readonly options: CredentialsCacheOptions<T>) {
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The cached value, or what `resolve` yields (then cached unless invalidated meanwhile). */
  async get(workspace: string, path: string, token: string, resolve: () => Promise<T>): Promise<T> {
    const scope = scopeKey(workspace, path);
    const key = `${scope}\u0000${tokenDigest(token)}`;
    const entry = this.entries.get(key);
    if (entry !== undefined) {
      if (entry.expiresAt > this.now()) return entry.value;
      this.entries.delete(key);
    }
    const pending = this.inflight.get(key);
    if (pending) return pending;

    const generation = this.generationOf(scope, workspace);
    const resolution = resolve().then(
      (value) => {
        this.inflight.delete(key);
        if (this.generationOf(scope, workspace) === generation) {
          const ttlEnd = this.now() + this.options.ttlMs;
          const validUntil = this.options.validUntil?.(value);
          const expiresAt = validUntil === undefined ? ttlEnd : Math.min(ttlEnd, validUntil);
          this.store(key, { value, scope, workspace, expiresAt });
        }
        return value;
      },
      (error: unknown) => {
        this.inflight.delete(key);
        throw error;
      },
    );
    this.inflight.set(key, resolution);
    return resolution;
  }

  /** Drops every caller's entry for one resource (it changed, was renamed or deleted). */
  invalidateResource(workspace: string, path: string): number {
    const scope = scopeKey(workspace, path);
    this.bump(scope);
    return this.dropWhere((entry) => entry.scope === scope);
  }

  /** Drops a whole workspace (a variable changed: any resource there may reference it). */
  invalidateWorkspace(workspace: string): number {
    this.bump(`${workspace}\u0000*`);
    return this.dropWhere((entry) => entry.workspace === workspace);
  }

  /**
   * Drops the entries whose value `matches` (a revoked token's identity, a member whose rights
   * changed), in `workspace` or, for null, in every workspace. A resolution in flight there is
   * not stored (it may have been answered before the change): the cost of not knowing its value.
   */
  invalidateMatching(workspace: string | null, matches: (value: T) => boolean): number {
    this.bump(workspace === null ? ALL_WORKSPACES : `${workspace}\u0000*`);
    return this.dropWhere(
      (entry) => (workspace === null || entry.workspace === workspace) && matches(entry.value),
    );
  }

  clear(): void {
    this.bump(ALL_WORKSPACES);
    this.entries.clear();
  }

  private store(key: string, entry: Entry<T>): void {
    if (this.entries.size >= this.options.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, entry);
  }

  private generationOf(scope: string, workspace: string): string {
    const own = this.generations.get(scope) ?? 0;
    const ofWorkspace = this.generations.get(`${workspace}\u0000*`) ?? 0;
    return `${own}:${ofWorkspace}:${this.generations.get(ALL_WORKSPACES) ?? 0}`;
  }

  private bump(scope: string): void {
    this.generations.set(scope, (this.generations.get(scope) ?? 0) + 1);
  }

  private dropWhere(predicate: (entry: Entry<T>) => boolean): number {
    let dropped = 0;
    for (const [key, entry] of this.entries) {
      if (predicate(entry)) {
        this.entries.delete(key);
        dropped++;
      }
    }
    return dropped;
  }
}

/** Generation key bumped by a change that concerns every workspace. */
const ALL_WORKSPACES = '\u0000*';

function scopeKey(workspace: string, path: string): string {
  return `${workspace}\u0000${path}`;
}

/**
 * Keys hold a digest, never the token: a heap dump of the cache shows no credential. One-shot
 * `hash` (no Hash object per lookup): this runs on every proxied call.
 */
function tokenDigest(token: string): string {
  return hash('sha256', token, 'base64url');
}
