import { z } from 'zod';
import { defineEvent, type EventContract } from '../messaging/contract.js';

/**
 * Facts about registry items, published through the outbox in the transaction that made the
 * change, so a cache elsewhere can drop what it holds. They name the item, never its value.
 */
export const ITEM_KINDS = ['resource', 'variable', 'script', 'flow'] as const;
export type ItemKind = (typeof ITEM_KINDS)[number];
export const ITEM_CHANGES = ['created', 'updated', 'deleted'] as const;
export type ItemChange = (typeof ITEM_CHANGES)[number];

/**
 * How long other registry replicas may still answer as before the change (ms): their identity,
 * folder and row caches keep what they read that long at most. A follower caching decisions made
 * from the registry's answers drops them once more after it. Absent from older registries.
 */
export const staleForMsField = z.int().min(0).optional();

/**
 * When a follower drops its cached decisions a second time after an event: a second after the
 * replicas' caches let go of what they read before it (`stale_for_ms`); 2 s after an event that
 * does not say (an older registry, whose caches kept 1 s); never later than 10 minutes.
 */
export function secondDropAfterMs(staleForMs: number | undefined): number {
  return staleForMs === undefined ? 2_000 : Math.min(600_000, staleForMs + 1_000);
}

export const ItemChangedEventSchema = z.object({
  kind: z.enum(ITEM_KINDS),
  change: z.enum(ITEM_CHANGES),
  workspace: z.string(),
  path: z.string(),
  /** Set when an update renamed the item: its path before. */
  previous_path: z.string().optional(),
  /** A resource's type. */
  resource_type: z.string().optional(),
  /** A script's new current version. */
  hash: z.string().optional(),
  /** Who made the change (user name, or the job's principal). */
  by: z.string(),
  at: z.string(),
  stale_for_ms: staleForMsField,
});
export type ItemChangedEvent = z.infer<typeof ItemChangedEventSchema>;

type ItemEvents = Record<ItemKind, Record<ItemChange, EventContract<typeof ItemChangedEventSchema>>>;

/** `evt.<kind>.<change>`: `evt.resource.updated`, `evt.flow.deleted`, ... */
export const ITEM_EVENTS: ItemEvents = Object.fromEntries(
  ITEM_KINDS.map((kind) => [
    kind,
    Object.fromEntries(
      ITEM_CHANGES.map((change) => [change, defineEvent(`evt.${kind}.${change}`, ItemChangedEventSchema)]),
    ),
  ]),
) as ItemEvents;

/** Every change of one kind of item (`evt.resource.>`): the filter of a consumer that follows that kind. */
export const ITEM_EVENTS_SUBJECTS: Readonly<Record<ItemKind, string>> = Object.fromEntries(
  ITEM_KINDS.map((kind) => [kind, `evt.${kind}.>`]),
) as Record<ItemKind, string>;

/** Every item event, for a consumer that wants them all. */
export const ALL_ITEM_EVENTS: readonly EventContract<typeof ItemChangedEventSchema>[] = ITEM_KINDS.flatMap(
  (kind) => ITEM_CHANGES.map((change) => ITEM_EVENTS[kind][change]),
);
