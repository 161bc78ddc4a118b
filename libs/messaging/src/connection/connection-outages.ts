import type { NatsConnection } from '@nats-io/nats-core';

/** Where a process says that it lost NATS and got it back (a Nest `Logger` fits). */
export interface OutageLog {
  warn(message: string): void;
  log(message: string): void;
}

/** Told when the connection is back after an outage; what it returns is awaited (readiness waits too). */
export type ReconnectListener = () => void | Promise<void>;

/**
 * Follows one connection's status events: whether the server is reachable, since when it is not,
 * and who must act once it is back (make again what a new server lacks, consume again, flush).
 * An outage is said once: a line when the connection drops and a line when it is back, with how
 * long it lasted; never a line per request that failed meanwhile.
 */
export class ConnectionOutages {
  private lostAt: number | undefined;
  private restoring = 0;
  private readonly listeners = new Set<ReconnectListener>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly log?: OutageLog,
    private readonly now: () => number = Date.now,
  ) {
    void this.follow();
  }

  /** False from the moment the connection drops until it is back. */
  get connected(): boolean {
    return this.lostAt === undefined;
  }

  /** False from the moment the connection drops until it is back and every listener has run. */
  get ready(): boolean {
    return this.notReadyReason() === undefined;
  }

  /** Why the connection cannot be relied on now, for readiness; undefined when it can. */
  notReadyReason(): string | undefined {
    if (this.lostAt !== undefined)
      return `NATS connection lost ${seconds(this.now() - this.lostAt)} ago; reconnecting`;
    if (this.restoring > 0) return 'NATS connection back; restoring streams and consumers';
    return undefined;
  }

  /** Calls `listener` after every reconnect; returns the way to stop. */
  onReconnect(listener: ReconnectListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private async follow(): Promise<void> {
    for await (const status of this.nc.status()) {
      if (status.type === 'disconnect') this.lost(status.server);
      else if (status.type === 'reconnect') this.back(status.server);
    }
  }

  private lost(server: string): void {
    if (this.lostAt !== undefined || this.nc.isClosed() || this.nc.isDraining()) return;
    this.lostAt = this.now();
    this.log?.warn(
      `NATS connection lost (${server}); reconnecting, not ready until it is back (requests over NATS fail meanwhile)`,
    );
  }

  private back(server: string): void {
    const lostAt = this.lostAt;
    this.lostAt = undefined;
    if (lostAt !== undefined)
      this.log?.log(`NATS connection back after ${seconds(this.now() - lostAt)} (${server})`);
    const listeners = [...this.listeners];
    if (listeners.length === 0) return;
    this.restoring += 1;
    void Promise.allSettled(listeners.map(async (listener) => listener())).then((outcomes) => {
      this.restoring -= 1;
      for (const outcome of outcomes) {
        if (outcome.status === 'rejected') {
          const reason = outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason);
          this.log?.warn(`after the NATS reconnect: ${reason}`);
        }
      }
    });
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
