import type { Flow } from '@flowmesh/contracts';
import type { FlowVersionEntity } from './flow-version.entity.js';
import type { FlowEntity } from './flow.entity.js';
import type { ListedFlowRow } from './flow.repository.js';

export function toListedFlow(row: ListedFlowRow): Omit<Flow, 'value' | 'schema'> {
  return {
    workspace_id: row.workspaceId,
    path: row.path,
    summary: row.summary,
    description: row.description,
    version_id: Number(row.versionId),
    created_by: row.createdBy,
    created_at: row.createdAt.toISOString(),
    edited_by: row.editedBy,
    edited_at: row.editedAt.toISOString(),
  };
}

export function toFlow(row: FlowEntity): Flow {
  return { ...toListedFlow(row), value: row.value, schema: row.schema };
}

/** A past version, shaped as the flow was when it was saved. */
export function toFlowAtVersion(flow: FlowEntity, version: FlowVersionEntity): Flow {
  return {
    ...toFlow(flow),
    summary: version.summary,
    description: version.description,
    value: version.value,
    schema: version.schema,
    version_id: Number(version.id),
    edited_by: version.createdBy,
    edited_at: version.createdAt.toISOString(),
  };
}
