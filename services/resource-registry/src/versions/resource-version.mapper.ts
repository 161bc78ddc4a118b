import type { ResourceVersion, ResourceVersionSummary } from '@flowmesh/contracts';
import type { ResourceVersionEntity } from './resource-version.entity.js';

export function toVersionSummary(row: ResourceVersionEntity): ResourceVersionSummary {
  return {
    version: row.version,
    path: row.path,
    resource_type: row.resourceType,
    description: row.description,
    created_by: row.createdBy,
    created_at: row.createdAt.toISOString(),
    restored_from: row.restoredFrom,
  };
}

export function toVersion(row: ResourceVersionEntity): ResourceVersion {
  return { ...toVersionSummary(row), value: row.value };
}
