import { createHash } from 'node:crypto';

/**
 * Results kept for `cache_ttl` seconds (`ResultCacheStore`), keyed by what ran and with which
 * arguments: a step by its workspace, flow, step id and code (or script path and hash), a flow by
 * its path or value.
 */
export function resultCacheKey(parts: readonly unknown[]): string {
  return createHash('sha256').update(stableJson(parts)).digest('hex');
}

/** JSON with object keys sorted, so equal arguments hash equally whatever their order. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item !== null && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(
          Object.entries(item as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)),
        )
      : item,
  );
}
