import { FLOWMESH_METRICS, getMeter, instrumentsOnFirstUse } from '@flowmesh/telemetry';

const saves = instrumentsOnFirstUse(() =>
  getMeter('flowmesh.memory-service').createCounter(FLOWMESH_METRICS.memorySaves.name, {
    unit: FLOWMESH_METRICS.memorySaves.unit,
    description: 'Memory save requests answered, by status and store',
  }),
);

/**
 * `flowmesh.memory.saves`: every save request answered, by `status` (saved, skipped,
 * compaction_required, failed), `store` (database, s3) and whether the history was `compacted`
 * by the agent before.
 */
export function recordMemorySave(status: string, store: string, compacted: boolean): void {
  saves().add(1, { status, store, compacted: String(compacted) });
}
