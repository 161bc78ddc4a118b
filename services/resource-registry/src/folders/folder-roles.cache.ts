import type { FolderRoles } from '../access/access-policy.js';

/** How long another replica may go on using folder roles changed elsewhere. */
export const FOLDER_ROLES_TTL_MS = 1_000;

interface Entry {
  readonly roles: FolderRoles | undefined;
  readonly until: number;
}

/**
 * Folder roles are read on every access check of an `f/` path, several times per interpolation,
 * and change rarely. This replica forgets them at once when it changes a folder itself; a change
 * made by another replica is seen within `FOLDER_ROLES_TTL_MS`.
 */
export class FolderRolesCache {
  private readonly entries = new Map<string, Entry>();
  /** Concurrent misses of one folder share one load (an expiry under load is one query). */
  private readonly loading = new Map<string, Promise<FolderRoles | undefined>>();
  /** Bumped by every local change: a read that began before it must not store what it read. */
  private generation = 0;

  constructor(
    private readonly ttlMs = FOLDER_ROLES_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  async get(
    workspace: string,
    name: string,
    load: () => Promise<FolderRoles | undefined>,
  ): Promise<FolderRoles | undefined> {
    const key = `${workspace}\u0000${name}`;
    const cached = this.entries.get(key);
    if (cached && cached.until > this.now()) return cached.roles;
    const pending = this.loading.get(key);
    if (pending) return pending;
    const generation = this.generation;
    const started = load().then((roles) => {
      if (generation === this.generation) {
        if (this.entries.size >= 10_000) this.entries.clear();
        this.entries.set(key, { roles, until: this.now() + this.ttlMs });
      }
      return roles;
    });
    this.loading.set(key, started);
    const done = () => {
      if (this.loading.get(key) === started) this.loading.delete(key);
    };
    started.then(done, done);
    return started;
  }

  invalidate(): void {
    this.generation++;
    this.entries.clear();
    // A load under way may have read the roles before the change: nobody joins it now.
    this.loading.clear();
  }
}
