import { MEMORY_KEY_NAMESPACE } from '@flowmesh/contracts';
import { v5 as uuidv5, validate as isUuid } from 'uuid';

export interface ResolvedMemoryKey {
  readonly memoryId: string;
  /** False when the key was a uuid and is used as is. */
  readonly hashed: boolean;
}

/**
 * The memory id a key names: a uuid is used as is (lower-cased, as Postgres prints it); any other
 * string becomes a v5 uuid of `[workspace, flowPath, key]` in `MEMORY_KEY_NAMESPACE`, so the same
 * key in two flows, or two workspaces, names two memories. The name is a JSON array so no choice
 * of key can collide with another (workspace, flow) pair.
 */
export function resolveMemoryKey(workspace: string, flowPath: string, key: string): ResolvedMemoryKey {
  if (isUuid(key)) return { memoryId: key.toLowerCase(), hashed: false };
  return { memoryId: uuidv5(JSON.stringify([workspace, flowPath, key]), MEMORY_KEY_NAMESPACE), hashed: true };
}
