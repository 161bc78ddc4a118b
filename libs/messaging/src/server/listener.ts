/** One subscription a transport runs for a handler: core NATS requests or a JetStream consumer. */
export interface Listener {
  /** Human name for logs: subject or stream/durable. */
  readonly name: string;
  start(): Promise<void>;
  /** Stops taking new messages; handlers already running continue. */
  stopTaking(): Promise<void>;
  /** Waits for running handlers; `false` if some still run after `timeoutMs`. */
  waitForInflight(timeoutMs: number): Promise<boolean>;
  /** Gives up on handlers still running: their messages go back (or fail) so another instance answers. */
  abandonInflight(): void;
}
