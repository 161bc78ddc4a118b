/**
 * Freezes a parsed JSON value throughout. Rows in the read cache are shared by every request that
 * reads them; frozen, a handler that tried to change one fails loudly instead of changing what the
 * next caller reads.
 */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  for (const item of Object.values(value)) deepFreeze(item);
  return Object.freeze(value);
}
