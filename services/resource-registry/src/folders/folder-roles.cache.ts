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
    const generation = this.generation;
    const roles = await load();
    if (generation === this.generation) {
      if (this.entries.size >= 10_000) this.entries.clear();
      this.entries.set(key, { roles, until: this.now() + this.ttlMs });
    }
    return roles;
  }

  invalidate(): void {
    this.generation++;
    this.entries.clear();
  }
}
