import { MEMORY_KEY_NAMESPACE } from '@flowmesh/contracts';
import { v5 as uuidv5 } from 'uuid';

export interface ResolvedMemoryKey {
  readonly memoryId: string;
  /** False when the key was a uuid and is used as is. */
  readonly hashed: boolean;
}

const HYPHENATED = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SIMPLE = /^[0-9a-f]{32}$/i;

/**
 * The memory id a key names, as Windmill's `memory_key` derives it (see `MEMORY_KEY_NAMESPACE`):
 * the key trimmed; a uuid as is (hyphenated, lower case); any other string the v5 uuid of
 * `workspace \0 flowPath \0 key \0`. Workspace ids and paths hold no NUL, so no key can make
 * another (workspace, flow) pair's name.
 */
export function resolveMemoryKey(workspace: string, flowPath: string, key: string): ResolvedMemoryKey {
  const trimmed = key.trim();
  const uuid = asUuid(trimmed);
  if (uuid) return { memoryId: uuid, hashed: false };
  const name = Buffer.from(`${workspace}\0${flowPath}\0${trimmed}\0`, 'utf8');
  return { memoryId: uuidv5(name, MEMORY_KEY_NAMESPACE), hashed: true };
}

/** The forms Windmill's `Uuid::parse_str` reads: hyphenated, 32 hex digits, braced, `urn:uuid:`. */
function asUuid(text: string): string | undefined {
  let core = text;
  if (core.startsWith('urn:uuid:')) core = core.slice('urn:uuid:'.length);
  else if (core.startsWith('{') && core.endsWith('}')) core = core.slice(1, -1);
  if (HYPHENATED.test(core)) return core.toLowerCase();
  if (core === text && SIMPLE.test(core)) {
    const hex = core.toLowerCase();
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
  return undefined;
}
