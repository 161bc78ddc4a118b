import type { WorkspaceSettings } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { ConnectionLanes } from './connection-lanes.js';

/** A workspace's own values; null where it keeps the default. */
export type StoredWorkspaceSettings = { readonly [K in WorkspaceSetting]: number | null };

/** The settings, each a column of `workspace_settings`. */
const SETTINGS = [
  'max_loop_iterations',
  'max_flow_modules',
  'max_agent_iterations',
  'max_agent_tool_calls',
  'max_agent_depth',
] as const satisfies ReadonlyArray<keyof WorkspaceSettings>;
type WorkspaceSetting = (typeof SETTINGS)[number];

const NONE = Object.fromEntries(SETTINGS.map((key) => [key, null])) as StoredWorkspaceSettings;
const COLUMNS = SETTINGS.join(', ');

/** `workspace_settings`: the engine limits a workspace set. */
@Injectable()
export class WorkspaceSettingsStore {
  constructor(private readonly lanes: ConnectionLanes) {}

  async read(workspace: string): Promise<StoredWorkspaceSettings> {
    const rows = await this.lanes.query<StoredWorkspaceSettings>(
      `SELECT ${COLUMNS} FROM workspace_settings WHERE workspace = $1`,
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
    // Two parameters a setting: whether it changes, and its new value (null: back to the default).
    const params: unknown[] = [workspace, by];
    const values: string[] = [];
    const updates: string[] = [];
    for (const key of SETTINGS) {
      params.push(changes[key] !== undefined, changes[key] ?? null);
      const [changed, value] = [params.length - 1, params.length];
      values.push(`$${value}::integer`);
      updates.push(`${key} = CASE WHEN $${changed} THEN EXCLUDED.${key} ELSE workspace_settings.${key} END`);
    }
    const rows = await this.lanes.query<StoredWorkspaceSettings>(
      `INSERT INTO workspace_settings (workspace, updated_by, ${COLUMNS})
       VALUES ($1, $2, ${values.join(', ')})
       ON CONFLICT (workspace) DO UPDATE SET
         ${updates.join(',\n         ')},
         updated_by = EXCLUDED.updated_by, updated_at = now()
       RETURNING ${COLUMNS}`,
      params,
    );
    return rows[0] ?? NONE;
  }
}
