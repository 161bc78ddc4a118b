import { CreateOutbox1700000000000 } from '@flowmesh/messaging';
import { AddMemoryLocks1765100000000 } from './add-memory-locks.migration.js';
import { CreateMemoryTables1733500000000 } from './create-memory-tables.migration.js';

/**
 * Migrations of the `memory` schema, oldest first; TypeORM runs the pending ones at start,
 * under an advisory lock. The first is the outbox table from libs/messaging: a state change
 * and the message it causes commit together.
 */
export const MEMORY_SERVICE_MIGRATIONS = [
  CreateOutbox1700000000000,
  CreateMemoryTables1733500000000,
  AddMemoryLocks1765100000000,
];
