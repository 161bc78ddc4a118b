import { secondDropAfterMs } from '@flowmesh/contracts';

/**
 * For a follower that caches decisions made from the registry's answers (credentials, logins):
 * on an item or identity event it drops what the event makes wrong at once, and once more after
 * the registry replicas' own caches let go of what they read before the change (the event's
 * `stale_for_ms`, `secondDropAfterMs`), so an answer read from one of them meanwhile is not kept.
 */
export class SettlingDrops {
  private readonly timers = new Set<NodeJS.Timeout>();

  drop(apply: () => void, staleForMs: number | undefined): void {
    apply();
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      apply();
    }, secondDropAfterMs(staleForMs));
    timer.unref();
    this.timers.add(timer);
  }

  /** Second drops still to come. */
  get pending(): number {
    return this.timers.size;
  }

  /** Forgets the second drops still to come (the follower stops). */
  clear(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
