import type { ListedResource, Resource } from '@flowmesh/contracts';
import type { ResourceEntity } from './resource.entity.js';
import type { ListedResourceRow } from './resource.repository.js';

export function toListedResource(row: ListedResourceRow): ListedResource {
  return {
    workspace_id: row.workspaceId,
    path: row.path,
    resource_type: row.resourceType,
    description: row.description,
    created_by: row.createdBy,
    created_at: row.createdAt.toISOString(),
    edited_by: row.editedBy,
    edited_at: row.editedAt.toISOString(),
  };
}

export function toResource(row: ResourceEntity): Resource {
  return { ...toListedResource(row), value: row.value };
}
