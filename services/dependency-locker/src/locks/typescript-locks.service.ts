import { createHash } from 'node:crypto';
import type { TypescriptLock, TypescriptRequirements } from '@flowmesh/contracts';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { LOCKER_SETTINGS, type LockerSettings } from '../dependency-locker.config.js';
import { LockfileRepository } from './lockfile.repository.js';
import { resolveNpmLockfile } from './npm-lockfile.resolver.js';

/** A version npm pins exactly (`2.1.3`, `1.0.0-beta.2`); anything else floats. */
const EXACT_VERSION = /^=?v?\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

/**
 * TypeScript locks: the first request for some requirements resolves them with npm and keeps the
 * lock; every later one (on any replica) gets that lock, so every worker installs the same tree.
 * A lock of floating ranges (`^2`, `latest`) is resolved again once `FLOWMESH_LOCKER_REFRESH_S`
 * has passed, so new releases arrive; one of exact versions never changes. Concurrent requests for
 * the same requirements share one resolution.
 */
@Injectable()
export class TypescriptLocks {
  private readonly log = new Logger('TypescriptLocks');
  private readonly resolving = new Map<string, Promise<TypescriptLock>>();

  constructor(
    private readonly lockfiles: LockfileRepository,
    @Inject(LOCKER_SETTINGS) private readonly settings: LockerSettings,
  ) {}

  async lock(requirements: TypescriptRequirements): Promise<{ lock: TypescriptLock; cached: boolean }> {
    const sorted = Object.fromEntries(Object.entries(requirements).sort(([a], [b]) => a.localeCompare(b)));
    const key = sha256(JSON.stringify(sorted));
    const known = await this.lockfiles.find(key);
    if (known && !this.due(sorted, known.resolvedAt)) return { lock: known.lock, cached: true };
    let pending = this.resolving.get(key);
    if (!pending) {
      pending = this.resolve(key, sorted, known !== undefined).finally(() => this.resolving.delete(key));
      this.resolving.set(key, pending);
    }
    try {
      return { lock: await pending, cached: false };
    } catch (error) {
      // A refresh that fails keeps the lock scripts already run with: no job fails for it.
      if (!known) throw error;
      this.log.warn(
        `the lock of ${Object.keys(sorted).join(', ')} was kept: resolving it again failed (${(error as Error).message})`,
      );
      return { lock: known.lock, cached: true };
    }
  }

  /** A lock of floating ranges is resolved again after `refreshMs`; one of exact versions never is. */
  private due(requirements: TypescriptRequirements, resolvedAt: Date): boolean {
    const floating = Object.values(requirements).some((range) => !EXACT_VERSION.test(range));
    return floating && Date.now() - resolvedAt.getTime() >= this.settings.refreshMs;
  }

  private async resolve(
    key: string,
    requirements: TypescriptRequirements,
    again: boolean,
  ): Promise<TypescriptLock> {
    const started = Date.now();
    const lockfile = await resolveNpmLockfile(this.settings, requirements);
    const packages = Object.keys((lockfile.packages as Record<string, unknown> | undefined) ?? {}).length - 1;
    this.log.log(
      `${again ? 'locked again' : 'locked'} ${Object.keys(requirements).join(', ')}: ${packages} packages in ${Date.now() - started} ms`,
    );
    const lock = { hash: sha256(JSON.stringify(lockfile)), requirements, lockfile };
    return again ? this.lockfiles.replace(key, lock) : this.lockfiles.keep(key, lock);
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
