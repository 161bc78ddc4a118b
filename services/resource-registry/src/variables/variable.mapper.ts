import type { Variable } from '@flowmesh/contracts';
import type { VariableEntity } from './variable.entity.js';

/** The variable as sent; `value` only when given (a secret's plaintext is passed in, never read here). */
export function toVariable(row: VariableEntity, value: string | undefined): Variable {
  return {
    workspace_id: row.workspaceId,
    path: row.path,
    ...(value === undefined ? {} : { value }),
    is_secret: row.isSecret,
    description: row.description,
    created_by: row.createdBy,
    created_at: row.createdAt.toISOString(),
    edited_by: row.editedBy,
    edited_at: row.editedAt.toISOString(),
  };
}
