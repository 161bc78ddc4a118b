/**
 * Writes that land one after the other, in the order they were given, each started once the one
 * before it settled (a failed write does not hold up the next). `flushed` waits for every write
 * given so far: a step reports its outcome after them.
 */
export class SerialWrites {
  private last: Promise<unknown> = Promise.resolve();

  /** Runs `write` after the writes before it; settles as it does. */
  enqueue<T>(write: () => Promise<T>): Promise<T> {
    const next = this.last.then(write);
    this.last = next.catch(() => undefined);
    return next;
  }

  async flushed(): Promise<void> {
    await this.last;
  }
}
