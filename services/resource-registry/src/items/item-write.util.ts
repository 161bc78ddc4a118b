import { MeshError, type CallerIdentity, type ItemKind } from '@flowmesh/contracts';
import type { ItemEventInput } from '../item-events/item-event.writer.js';
import { isNulCharacter, isUniqueViolation } from './postgres-error.util.js';

/** CONFLICT: an item of this kind already stands at `path`. */
export function itemAlreadyExists(kind: ItemKind, path: string): MeshError {
  return new MeshError('CONFLICT', `${kind} ${path} already exists`, { path });
}

/** NOT_FOUND with the item's own message, unless the row was found. */
export function foundOrThrow<T>(row: T | null | undefined, path: string, notFoundMessage: string): T {
  if (!row) throw new MeshError('NOT_FOUND', notFoundMessage, { path });
  return row;
}

/**
 * Runs an item's insert or update. A unique violation is the path taken meanwhile by another
 * writer; U+0000 (in `field`) is a character Postgres cannot store.
 */
export async function writingItem<T>(
  kind: ItemKind,
  path: string,
  work: () => Promise<T>,
  field: 'value' | 'content' = 'value',
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isUniqueViolation(error)) throw itemAlreadyExists(kind, path);
    if (isNulCharacter(error)) {
      throw new MeshError(
        'VALIDATION_FAILED',
        `${field}: ${kind} ${path} contains the character U+0000, which cannot be stored`,
      );
    }
    throw error;
  }
}

/** The event of a change made by `identity` to the item at `path` (moved from `previousPath`). */
export function itemChange(
  kind: ItemKind,
  change: ItemEventInput['change'],
  identity: CallerIdentity,
  path: string,
  previousPath?: string,
): ItemEventInput {
  return {
    kind,
    change,
    workspace: identity.workspace,
    path,
    ...(previousPath ? { previous_path: previousPath } : {}),
    by: identity.username,
  };
}
