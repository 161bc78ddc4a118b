import type { MemorySummary } from '@flowmesh/contracts';
import type { MemoryRowSummary } from './memory.types.js';

export function toMemorySummary(row: MemoryRowSummary): MemorySummary {
  return {
    memoryId: row.memoryId,
    stepId: row.stepId,
    flowPath: row.flowPath,
    version: row.version,
    messageCount: row.messageCount,
    sizeBytes: row.sizeBytes,
    store: row.store,
    updatedAt: row.updatedAt.toISOString(),
  };
}
