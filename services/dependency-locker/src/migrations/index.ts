import { CreateOutbox1700000000000 } from '@flowmesh/messaging';
import { CreateLockfiles1764700000000 } from '../locks/create-lockfiles.migration.js';
import { CreateLockMap1764800000000 } from '../map/create-lock-map.migration.js';
import { CreateToolRevalidation1765000000000 } from '../revalidation/create-tool-revalidation.migration.js';

/**
 * Migrations of the `dependency_locker` schema, oldest first; TypeORM runs the pending ones at start,
 * under an advisory lock. The first is the outbox table from libs/messaging: a state change
 * and the message it causes commit together.
 */
export const DEPENDENCY_LOCKER_MIGRATIONS = [
  CreateOutbox1700000000000,
  CreateLockfiles1764700000000,
  CreateLockMap1764800000000,
  CreateToolRevalidation1765000000000,
];
