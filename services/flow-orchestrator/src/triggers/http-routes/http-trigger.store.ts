import type {
  HttpTrigger,
  HttpTriggerAuthenticationMethod,
  HttpTriggerMethod,
  HttpTriggerMode,
  HttpTriggerRequestType,
} from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { ConnectionLanes } from '../../store/connection-lanes.js';

/** A row of `http_trigger`. */
export interface HttpTriggerRow {
  readonly workspace_id: string;
  readonly path: string;
  readonly route_path: string;
  readonly route_path_key: string;
  readonly route_key: string;
  readonly script_path: string;
  readonly is_flow: boolean;
  readonly http_method: HttpTriggerMethod;
  readonly request_type: HttpTriggerRequestType;
  readonly authentication_method: HttpTriggerAuthenticationMethod;
  readonly authentication_resource_path: string | null;
  readonly workspaced_route: boolean;
  readonly wrap_body: boolean;
  readonly raw_string: boolean;
  readonly summary: string | null;
  readonly description: string | null;
  readonly mode: HttpTriggerMode;
  readonly edited_by: string;
  readonly email: string;
  readonly edited_at: Date;
  readonly permissioned_as: string;
  readonly owner_token_sealed: string;
  readonly owner_token_prefix: string;
}

/** What `insert` and `replace` write (`edited_at` is the database's clock). */
export type HttpTriggerWrite = Omit<HttpTriggerRow, 'edited_at'>;

const COLUMNS = [
  'workspace_id',
  'path',
  'route_path',
  'route_path_key',
  'route_key',
  'script_path',
  'is_flow',
  'http_method',
  'request_type',
  'authentication_method',
  'authentication_resource_path',
  'workspaced_route',
  'wrap_body',
  'raw_string',
  'summary',
  'description',
  'mode',
  'edited_by',
  'email',
  'permissioned_as',
  'owner_token_sealed',
  'owner_token_prefix',
] as const satisfies readonly (keyof HttpTriggerWrite)[];

const SELECT = `SELECT ${COLUMNS.join(', ')}, edited_at FROM http_trigger`;
const BUMP_VERSION = `UPDATE http_trigger_version SET version = version + 1`;

/** Postgres' unique_violation: a route or a path already taken. */
export const UNIQUE_VIOLATION = '23505';

/** The route as every read answers it: never its token. */
export function toHttpTrigger(row: HttpTriggerRow): HttpTrigger {
  return {
    workspace_id: row.workspace_id,
    path: row.path,
    route_path: row.route_path,
    route_path_key: row.route_path_key,
    script_path: row.script_path,
    is_flow: row.is_flow,
    http_method: row.http_method,
    request_type: row.request_type,
    is_async: row.request_type === 'async',
    authentication_method: row.authentication_method,
    authentication_resource_path: row.authentication_resource_path,
    workspaced_route: row.workspaced_route,
    wrap_body: row.wrap_body,
    raw_string: row.raw_string,
    summary: row.summary,
    description: row.description,
    mode: row.mode,
    enabled: row.mode === 'enabled',
    is_static_website: false,
    edited_by: row.edited_by,
    edited_at: row.edited_at.toISOString(),
    email: row.email,
    permissioned_as: row.permissioned_as,
    extra_perms: {},
  };
}

/** `http_trigger` and its change counter. Every write bumps the counter in its transaction. */
@Injectable()
export class HttpTriggerStore {
  constructor(private readonly lanes: ConnectionLanes) {}

  async find(workspace: string, path: string): Promise<HttpTriggerRow | undefined> {
    const [row] = await this.lanes.query<HttpTriggerRow>(`${SELECT} WHERE workspace_id = $1 AND path = $2`, [
      workspace,
      path,
    ]);
    return row;
  }

  /** Windmill's list: newest edit first; `scriptPath` the runnable, `pathStart` the trigger's path prefix. */
  list(
    workspace: string,
    filter: { scriptPath?: string; isFlow?: boolean; pathStart?: string; limit: number; offset: number },
  ): Promise<HttpTriggerRow[]> {
    return this.lanes.query<HttpTriggerRow>(
      `${SELECT} WHERE workspace_id = $1
         AND ($2::text IS NULL OR script_path = $2)
         AND ($3::boolean IS NULL OR is_flow = $3)
         AND ($4::text IS NULL OR starts_with(path, $4))
       ORDER BY edited_at DESC, path LIMIT $5 OFFSET $6`,
      [
        workspace,
        filter.scriptPath ?? null,
        filter.isFlow ?? null,
        filter.pathStart ?? null,
        filter.limit,
        filter.offset,
      ],
    );
  }

  /** Whether another route (not `exceptPath` of `workspace`) answers `routeKey` with `method`. */
  async routeTaken(
    routeKey: string,
    method: string,
    except?: { workspace: string; path: string },
  ): Promise<boolean> {
    const [row] = await this.lanes.query<{ taken: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM http_trigger WHERE route_key = $1 AND http_method = $2
         AND NOT (workspace_id = $3 AND path = $4)) AS taken`,
      [routeKey, method, except?.workspace ?? '', except?.path ?? ''],
    );
    return row?.taken ?? false;
  }

  async insert(row: HttpTriggerWrite): Promise<HttpTriggerRow> {
    return this.lanes.transaction(async (query) => {
      const [inserted] = await query<HttpTriggerRow>(
        `INSERT INTO http_trigger (${COLUMNS.join(', ')})
         VALUES (${COLUMNS.map((_, index) => `$${index + 1}`).join(', ')})
         RETURNING ${COLUMNS.join(', ')}, edited_at`,
        COLUMNS.map((column) => row[column]),
      );
      await query(BUMP_VERSION, []);
      return inserted;
    });
  }

  /** Replaces the route at `path` (whose new path is `row.path`); undefined when it is gone. */
  async replace(path: string, row: HttpTriggerWrite): Promise<HttpTriggerRow | undefined> {
    return this.lanes.transaction(async (query) => {
      const [updated] = await query<HttpTriggerRow>(
        `UPDATE http_trigger SET ${COLUMNS.map((column, index) => `${column} = $${index + 1}`).join(', ')},
           edited_at = now()
         WHERE workspace_id = $${COLUMNS.length + 1} AND path = $${COLUMNS.length + 2}
         RETURNING ${COLUMNS.join(', ')}, edited_at`,
        [...COLUMNS.map((column) => row[column]), row.workspace_id, path],
      );
      if (updated) await query(BUMP_VERSION, []);
      return updated;
    });
  }

  async setMode(workspace: string, path: string, mode: HttpTriggerMode): Promise<HttpTriggerRow | undefined> {
    return this.lanes.transaction(async (query) => {
      const [updated] = await query<HttpTriggerRow>(
        `UPDATE http_trigger SET mode = $3, edited_at = now() WHERE workspace_id = $1 AND path = $2
         RETURNING ${COLUMNS.join(', ')}, edited_at`,
        [workspace, path, mode],
      );
      if (updated) await query(BUMP_VERSION, []);
      return updated;
    });
  }

  /** The deleted row (its token is to be revoked), or undefined. */
  async delete(workspace: string, path: string): Promise<HttpTriggerRow | undefined> {
    return this.lanes.transaction(async (query) => {
      const [deleted] = await query<HttpTriggerRow>(
        `DELETE FROM http_trigger WHERE workspace_id = $1 AND path = $2 RETURNING ${COLUMNS.join(', ')}, edited_at`,
        [workspace, path],
      );
      if (deleted) await query(BUMP_VERSION, []);
      return deleted;
    });
  }

  async version(): Promise<number> {
    const [row] = await this.lanes.query<{ version: string }>(`SELECT version FROM http_trigger_version`, []);
    return Number(row?.version ?? 0);
  }

  /** Every enabled route and the version they are (one statement, so one snapshot). */
  async enabledRoutes(): Promise<{ version: number; rows: HttpTriggerRow[] }> {
    const rows = await this.lanes.query<HttpTriggerRow & { table_version: string }>(
      `SELECT v.version AS table_version, ${COLUMNS.map((column) => `t.${column}`).join(', ')}, t.edited_at
       FROM http_trigger_version v LEFT JOIN http_trigger t ON t.mode = 'enabled'`,
      [],
    );
    return {
      version: Number(rows[0]?.table_version ?? 0),
      rows: rows.filter((row) => row.path !== null),
    };
  }
}
