import type { EntityManager } from 'typeorm';

/**
 * How a write runs: inside the caller's transaction (`manager`: a deploy or a draft that writes
 * several items all or nothing, then calls `ItemTransactions.wake()` after committing), and with
 * a `context` handed untouched to resource write listeners (`{ restoredFrom: 7 }`).
 */
export interface WriteOptions {
  readonly manager?: EntityManager;
  readonly context?: Readonly<Record<string, unknown>>;
}
