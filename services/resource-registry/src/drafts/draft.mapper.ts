import type { Draft, DraftSummary } from '@flowmesh/contracts';
import type { DraftEntity } from './draft.entity.js';

export function toDraftSummary(row: DraftEntity): DraftSummary {
  return {
    id: row.id,
    item_kind: row.itemKind,
    path: row.path,
    username: row.username,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function toDraft(row: DraftEntity): Draft {
  return { ...toDraftSummary(row), value: row.value };
}
