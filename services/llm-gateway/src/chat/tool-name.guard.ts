import { createHash } from 'node:crypto';

/**
 * The one rule every provider accepts for a tool name: OpenAI and Bedrock reject `.`, Gemini
 * wants a leading letter or underscore, all cap the length at 64. Anthropic's looser rule would
 * let `handbook.pdf` through and fail everywhere else.
 */
export const TOOL_NAME_PATTERN = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/;

const MAX_LENGTH = 64;
const HASH_LENGTH = 8;

function digest(name: string): string {
  return createHash('sha256').update(name).digest('hex').slice(0, HASH_LENGTH);
}

/**
 * The provider-safe form of one name, derived from it alone (so it is stable across calls):
 * invalid characters become `_`, a leading digit or `-` gets a `_` prefix, a name with nothing
 * usable left (all CJK, all punctuation) is `tool_<hash of the original>` (never one shared key
 * for every such name), and an over-long name keeps its start plus a hash of the whole.
 */
export function sanitizeToolName(name: string): string {
  if (TOOL_NAME_PATTERN.test(name)) return name;
  let safe = name.replace(/[^a-zA-Z0-9_-]+/g, '_');
  if (!/[a-zA-Z0-9]/.test(safe)) return `tool_${digest(name)}`;
  if (!/^[a-zA-Z_]/.test(safe)) safe = `_${safe}`;
  if (safe.length > MAX_LENGTH) safe = `${safe.slice(0, MAX_LENGTH - HASH_LENGTH - 1)}_${digest(name)}`;
  return safe;
}

/**
 * Caller tool names and the names a provider sees, both ways, for one call. Built from a list
 * (tools first, then names only the history mentions) holding a set of taken names, so no two
 * caller names ever share a provider name: a name that is already valid keeps itself, and a
 * rewritten name that collides gets a hash of its original, then a counter.
 */
export class ToolNameMap {
  private readonly toProvider = new Map<string, string>();
  private readonly toCaller = new Map<string, string>();

  constructor(names: Iterable<string>) {
    const unique = [...new Set(names)];
    // Valid names claim themselves first, so a rewritten name can never take a valid one's place.
    for (const name of unique) if (TOOL_NAME_PATTERN.test(name)) this.bind(name, name);
    for (const name of unique) if (!this.toProvider.has(name)) this.bind(name, this.freeName(name));
  }

  /** The name the provider sees for a caller's name (names outside the map pass unchanged). */
  provider(name: string): string {
    return this.toProvider.get(name) ?? name;
  }

  /** The caller's name for what the provider answered (an unknown name passes unchanged). */
  caller(name: string): string {
    return this.toCaller.get(name) ?? name;
  }

  /** True when at least one name was rewritten. */
  get rewrites(): boolean {
    for (const [caller, provider] of this.toProvider) if (caller !== provider) return true;
    return false;
  }

  private freeName(name: string): string {
    const base = sanitizeToolName(name);
    if (!this.toCaller.has(base)) return base;
    const hashed = `${base.slice(0, MAX_LENGTH - HASH_LENGTH - 1)}_${digest(name)}`;
    if (!this.toCaller.has(hashed)) return hashed;
    for (let counter = 2; ; counter++) {
      const suffix = `_${counter}`;
      const candidate = `${hashed.slice(0, MAX_LENGTH - suffix.length)}${suffix}`;
      if (!this.toCaller.has(candidate)) return candidate;
    }
  }

  private bind(caller: string, provider: string): void {
    this.toProvider.set(caller, provider);
    this.toCaller.set(provider, caller);
  }
}
