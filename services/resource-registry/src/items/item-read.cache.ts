/** The items whose rows interpolation reads, and so the ones kept here. */
export type CachedItemKind = 'resource' | 'variable';

/** What a load hands the cache: the row (null when there is none) and roughly what it weighs. */
export interface LoadedItem<T> {
  readonly row: T | null;
  /** Approximate size in bytes (the value's JSON text), counted against `maxBytes`. */
  readonly bytes: number;
}

/** An item event's naming of the item (`ItemChangedEvent`), whatever its kind. */
export interface ChangedItem {
  readonly kind: string;
  readonly workspace: string;
  readonly path: string;
  readonly previous_path?: string;
}

export interface ItemReadCacheOptions {
  /** How long a row is used without asking Postgres again; 0 turns the cache off. */
  readonly ttlMs: number;
  /** The most the cached rows may weigh in all (oldest dropped first). */
  readonly maxBytes: number;
  readonly now?: () => number;
}

interface Entry {
  readonly row: unknown;
  readonly bytes: number;
  readonly until: number;
}

/** Past this many remembered invalidations, the cache forgets them and refuses older reads instead. */
const MAX_REMEMBERED_INVALIDATIONS = 10_000;

/**
 * Resource and variable rows as interpolation reads them, keyed by (kind, workspace, path), a
 * missing row included. It holds rows, never decisions: every read still passes the caller's
 * access check. Rows are dropped by the registry's own writes (when they record their event,
 * and again when their transaction ends), by the item events of other replicas, and otherwise
 * after `ttlMs` at the latest.
 *
 * A read that began before an invalidation of its key never stores what it read (it may hold
 * the row as it was before the write), and concurrent misses of one key share one load.
 */
export class ItemReadCache {
  private readonly entries = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<unknown>>();
  private bytes = 0;
  /** Bumped by every invalidation; a load remembers the value it began at. */
  private sequence = 0;
  /** The sequence at which each recently invalidated key was last invalidated. */
  private readonly invalidatedAt = new Map<string, number>();
  /** Loads that began before this sequence store nothing (set when the above is forgotten). */
  private floor = 0;
  private readonly now: () => number;

  constructor(private readonly options: ItemReadCacheOptions) {
    this.now = options.now ?? Date.now;
  }

  get enabled(): boolean {
    return this.options.ttlMs > 0;
  }

  /** The row of `path`, from memory while fresh, else from `load` (whose row is then kept). */
  async get<T>(
    kind: CachedItemKind,
    workspace: string,
    path: string,
    load: () => Promise<LoadedItem<T>>,
  ): Promise<T | null> {
    if (!this.enabled) return (await load()).row;
    const key = keyOf(kind, workspace, path);
    const entry = this.entries.get(key);
    if (entry) {
      if (entry.until > this.now()) return entry.row as T | null;
      this.remove(key, entry);
    }
    const pending = this.loading.get(key) as Promise<T | null> | undefined;
    if (pending) return pending;
    const started = this.load(key, load);
    this.loading.set(key, started);
    const done = () => {
      // An invalidation may have dropped this load already, and a newer one taken its place.
      if (this.loading.get(key) === started) this.loading.delete(key);
    };
    started.then(done, done);
    return started;
  }

  /** Forgets one item (and makes any read of it under way store nothing). */
  invalidate(kind: CachedItemKind, workspace: string, path: string): void {
    const key = keyOf(kind, workspace, path);
    this.sequence++;
    if (this.invalidatedAt.size >= MAX_REMEMBERED_INVALIDATIONS) {
      this.invalidatedAt.clear();
      this.floor = this.sequence;
    }
    this.invalidatedAt.set(key, this.sequence);
    const entry = this.entries.get(key);
    if (entry) this.remove(key, entry);
    this.loading.delete(key);
  }

  /** Forgets what a change of an item makes stale: its path, and its path before a rename. */
  invalidateChanged(change: ChangedItem): void {
    if (change.kind !== 'resource' && change.kind !== 'variable') return;
    this.invalidate(change.kind, change.workspace, change.path);
    if (change.previous_path !== undefined)
      this.invalidate(change.kind, change.workspace, change.previous_path);
  }

  /** Forgets everything (events may have been missed). */
  invalidateAll(): void {
    this.sequence++;
    this.floor = this.sequence;
    this.invalidatedAt.clear();
    this.entries.clear();
    this.loading.clear();
    this.bytes = 0;
  }

  private async load<T>(key: string, load: () => Promise<LoadedItem<T>>): Promise<T | null> {
    const begun = this.sequence;
    const loaded = await load();
    if (this.mayStore(key, begun)) this.store(key, loaded);
    return loaded.row;
  }

  private mayStore(key: string, begun: number): boolean {
    return begun >= this.floor && (this.invalidatedAt.get(key) ?? -1) <= begun;
  }

  private store(key: string, loaded: LoadedItem<unknown>): void {
    if (loaded.bytes > this.options.maxBytes) return;
    const previous = this.entries.get(key);
    if (previous) this.remove(key, previous);
    // Oldest first: a Map iterates in insertion order.
    for (const [oldestKey, oldest] of this.entries) {
      if (this.bytes + loaded.bytes <= this.options.maxBytes) break;
      this.remove(oldestKey, oldest);
    }
    this.entries.set(key, { row: loaded.row, bytes: loaded.bytes, until: this.now() + this.options.ttlMs });
    this.bytes += loaded.bytes;
  }

  private remove(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }
}

function keyOf(kind: CachedItemKind, workspace: string, path: string): string {
  return `${kind}\u0000${workspace}\u0000${path}`;
}
