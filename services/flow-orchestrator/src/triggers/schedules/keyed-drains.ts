interface KeyState {
  /** Settles when the key's last drain ends (never rejects). */
  tail: Promise<void>;
  /** The key's next drain while it has not begun: a request now joins it. */
  queued?: Promise<void>;
}

/**
 * Drains per key: one at a time for a key, at most `max` keys at once (each holds a database
 * connection while it runs). A drain reads everything there is to handle when it begins, so a
 * request for a key whose next drain has not begun joins that one instead of queueing another.
 */
export class KeyedDrains {
  private readonly keys = new Map<string, KeyState>();
  private readonly waiting: Array<() => void> = [];
  private active = 0;

  constructor(private readonly max: number) {}

  run(key: string, drain: () => Promise<void>): Promise<void> {
    const state = this.keys.get(key) ?? { tail: Promise.resolve() };
    if (state.queued) return state.queued;
    const next: Promise<void> = state.tail.then(async () => {
      await this.acquire();
      if (state.queued === next) state.queued = undefined;
      try {
        await drain();
      } finally {
        this.release();
      }
    });
    const tail = next.catch(() => undefined);
    state.queued = next;
    state.tail = tail;
    this.keys.set(key, state);
    void tail.then(() => {
      if (state.tail === tail) this.keys.delete(key);
    });
    return next;
  }

  private async acquire(): Promise<void> {
    while (this.active >= this.max) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
  }

  private release(): void {
    this.active--;
    this.waiting.shift()?.();
  }
}
