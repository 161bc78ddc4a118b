import { Injectable } from '@nestjs/common';
import { ConnectionLanes } from './connection-lanes.js';

/** A workspace's own values; null where it keeps the default. */
export interface StoredWorkspaceSettings {
  readonly max_loop_iterations: number | null;
  readonly max_flow_modules: number | null;
}

const NONE: StoredWorkspaceSettings = { max_loop_iterations: null, max_flow_modules: null };

/** `workspace_settings`: the engine limits a workspace set. */
@Injectable()
export class WorkspaceSettingsStore {
  constructor(private readonly lanes: ConnectionLanes) {}

  async read(workspace: string): Promise<StoredWorkspaceSettings> {
    const rows = await this.lanes.query<StoredWorkspaceSettings>(
      `SELECT max_loop_iterations, max_flow_modules FROM workspace_settings WHERE workspace = $1`,
      [workspace],
    );
    return rows[0] ?? NONE;
  }

  /** Sets the values given (null: back to the default), keeps the others; the row as it is now. */
  async update(
    workspace: string,
    changes: Partial<StoredWorkspaceSettings>,
    by: string,
  ): Promise<StoredWorkspaceSettings> {
    const has = (key: keyof StoredWorkspaceSettings) => changes[key] !== undefined;
    const rows = await this.lanes.query<StoredWorkspaceSettings>(
      `INSERT INTO workspace_settings (workspace, max_loop_iterations, max_flow_modules, updated_by)
       VALUES ($1, $3, $5, $6)
       ON CONFLICT (workspace) DO UPDATE SET
         max_loop_iterations = CASE WHEN $2 THEN EXCLUDED.max_loop_iterations ELSE workspace_settings.max_loop_iterations END,
         max_flow_modules = CASE WHEN $4 THEN EXCLUDED.max_flow_modules ELSE workspace_settings.max_flow_modules END,
         updated_by = EXCLUDED.updated_by, updated_at = now()
       RETURNING max_loop_iterations, max_flow_modules`,
      [
        workspace,
        has('max_loop_iterations'),
        changes.max_loop_iterations ?? null,
        has('max_flow_modules'),
        changes.max_flow_modules ?? null,
        by,
      ],
    );
    return rows[0] ?? NONE;
  }
}
