/**
 * At most `limit` deliveries at once: `add` waits for room before it starts one (so a listener
 * takes no more from its broker than it can start), `settled` for all of them to end.
 */
export class InFlight {
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly limit: number) {}

  async add(work: () => Promise<void>): Promise<void> {
    while (this.running.size >= this.limit) await Promise.race(this.running);
    const task = work()
      .catch(() => undefined)
      .finally(() => this.running.delete(task));
    this.running.add(task);
  }

  async settled(): Promise<void> {
    await Promise.all(this.running);
  }
}
