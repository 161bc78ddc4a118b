import type { ResourceType } from '@flowmesh/contracts';
import type { ResourceTypeEntity } from './resource-type.entity.js';

export function toResourceType(row: ResourceTypeEntity): ResourceType {
  return {
    workspace_id: row.workspaceId,
    name: row.name,
    schema: row.schema,
    description: row.description,
    builtin: row.builtin,
    created_by: row.createdBy,
    created_at: row.createdAt.toISOString(),
    edited_at: row.editedAt.toISOString(),
  };
}
