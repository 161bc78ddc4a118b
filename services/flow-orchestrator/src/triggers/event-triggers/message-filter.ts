import type { MessageFilter } from '@flowmesh/contracts';

/**
 * Whether a message's body passes a trigger's filters, as Windmill's `filter.rs`: no filter
 * passes everything; otherwise the body must be a JSON object, and each `{key, value}` (a
 * top-level field) or `{path, value}` (a dotted path through objects) holds when the field's
 * value contains `value` (objects by their keys, arrays by their items, anything else by
 * equality); groups `any_of`, `all_of` and `none_of` nest. `logic` joins the top level.
 */
export function passesFilters(
  filters: readonly MessageFilter[],
  logic: 'and' | 'or',
  body: Uint8Array,
): boolean {
  const kept = withoutEmptyGroups(filters);
  if (kept.length === 0) return true;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(body).toString('utf8'));
  } catch {
    return false;
  }
  if (!isObject(value)) return false;
  return evaluate(kept, logic === 'or', value);
}

function evaluate(
  filters: readonly MessageFilter[],
  any: boolean,
  message: Record<string, unknown>,
): boolean {
  const holds = (filter: MessageFilter): boolean => {
    if ('any_of' in filter) return evaluate(filter.any_of, true, message);
    if ('all_of' in filter) return evaluate(filter.all_of, false, message);
    if ('none_of' in filter) return !evaluate(filter.none_of, true, message);
    if ('key' in filter) return filter.key in message && contains(message[filter.key], filter.value);
    let at: unknown = message;
    for (const segment of filter.path.split('.')) {
      if (!isObject(at) || !(segment in at)) return false;
      at = at[segment];
    }
    return contains(at, filter.value);
  };
  return any ? filters.some(holds) : filters.every(holds);
}

/** Windmill's `is_superset`: `found` holds everything `wanted` says. */
export function contains(found: unknown, wanted: unknown): boolean {
  if (isObject(found) && isObject(wanted)) {
    return Object.entries(wanted).every(([key, value]) => key in found && contains(found[key], value));
  }
  if (Array.isArray(found) && Array.isArray(wanted)) {
    return wanted.every((item) => found.some((candidate) => contains(candidate, item)));
  }
  if (typeof found === 'object' || typeof wanted === 'object') {
    return JSON.stringify(found) === JSON.stringify(wanted);
  }
  return found === wanted;
}

/** A group left empty means nothing (Windmill drops it rather than let it pass or mute everything). */
function withoutEmptyGroups(filters: readonly MessageFilter[]): MessageFilter[] {
  const kept: MessageFilter[] = [];
  for (const filter of filters) {
    if ('any_of' in filter || 'all_of' in filter || 'none_of' in filter) {
      const [name, nested] = Object.entries(filter)[0];
      const inner = withoutEmptyGroups(nested);
      if (inner.length > 0) kept.push({ [name]: inner } as MessageFilter);
    } else kept.push(filter);
  }
  return kept;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
