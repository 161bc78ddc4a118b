/**
 * The handler runs a listener has started and not finished, so a listener can cap its
 * concurrency and a graceful close can wait for them, for a bounded time.
 */
export class InflightTracker<Entry> {
  private readonly running = new Map<Promise<void>, Entry>();
  private waiters: Array<() => void> = [];

  get size(): number {
    return this.running.size;
  }

  entries(): Entry[] {
    return [...this.running.values()];
  }

  /** Tracks `run` until it settles; it must not reject (listeners handle their own errors). */
  track(run: Promise<void>, entry: Entry): void {
    this.running.set(run, entry);
    void run.finally(() => {
      this.running.delete(run);
      if (this.waiters.length === 0) return;
      const waiters = this.waiters;
      this.waiters = [];
      for (const wake of waiters) wake();
    });
  }

  /** Resolves once fewer than `limit` runs are in flight. */
  async waitBelow(limit: number): Promise<void> {
    while (this.running.size >= limit) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** Resolves `true` when every run finished within `timeoutMs`, `false` otherwise. */
  async waitForAll(timeoutMs: number): Promise<boolean> {
    if (this.running.size === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    const allDone = (async () => {
      await this.waitBelow(1);
      return true as const;
    })();
    try {
      return await Promise.race([allDone, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }
}
