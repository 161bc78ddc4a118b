import type {
  EventTrigger,
  EventTriggerKind,
  EventTriggerMode,
  EventTriggerState,
  MessageFilter,
} from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { ConnectionLanes } from '../../store/connection-lanes.js';

/** A row of `event_trigger`. */
export interface EventTriggerRow {
  readonly workspace_id: string;
  readonly kind: EventTriggerKind;
  readonly path: string;
  readonly script_path: string;
  readonly is_flow: boolean;
  readonly mode: EventTriggerMode;
  /** The kind's own fields (`subjects`, `queue_name`, `subscribe_topics`, ...). */
  readonly config: Record<string, unknown>;
  readonly filters: MessageFilter[];
  readonly filter_logic: 'and' | 'or';
  readonly summary: string | null;
  readonly description: string | null;
  /** A script's error handler (a script path), its extra args, and the retry of a script's run. */
  readonly error_handler_path: string | null;
  readonly error_handler_args: Record<string, unknown> | null;
  readonly retry: Record<string, unknown> | null;
  readonly edited_by: string;
  readonly email: string;
  readonly edited_at: Date;
  /** Counts saves and mode changes: a listener runs one revision. */
  readonly revision: string;
  readonly permissioned_as: string;
  readonly owner_token_sealed: string;
  readonly owner_token_prefix: string;
  readonly server_id: string | null;
  readonly last_server_ping: Date | null;
  readonly state: EventTriggerState;
  readonly error: string | null;
  readonly error_since: Date | null;
}

/** What `insert` and `replace` write; the listener's columns start afresh. */
export type EventTriggerWrite = Omit<
  EventTriggerRow,
  'edited_at' | 'revision' | 'server_id' | 'last_server_ping' | 'state' | 'error' | 'error_since'
>;

const COLUMNS = [
  'workspace_id',
  'kind',
  'path',
  'script_path',
  'is_flow',
  'mode',
  'config',
  'filters',
  'filter_logic',
  'summary',
  'description',
  'error_handler_path',
  'error_handler_args',
  'retry',
  'edited_by',
  'email',
  'permissioned_as',
  'owner_token_sealed',
  'owner_token_prefix',
] as const satisfies readonly (keyof EventTriggerWrite)[];

const JSON_COLUMNS = new Set<string>(['config', 'filters', 'error_handler_args', 'retry']);
const ALL = `${COLUMNS.join(', ')}, edited_at, revision, server_id, last_server_ping, state, error, error_since`;
const SELECT = `SELECT ${ALL} FROM event_trigger`;
/** After a save or a mode change, the listener starts over: whoever takes the lease reports again. */
const freshState = (mode: string) => `server_id = NULL, last_server_ping = NULL, error = NULL,
  error_since = NULL, state = CASE WHEN ${mode} = 'enabled' THEN 'connecting' ELSE 'disabled' END`;

/** Postgres' unique_violation: the path is taken. */
export const UNIQUE_VIOLATION = '23505';

/** The trigger as every read answers it: never its token; the kind's fields beside the common ones. */
export function toEventTrigger(row: EventTriggerRow): EventTrigger {
  return {
    ...row.config,
    kind: row.kind,
    workspace_id: row.workspace_id,
    path: row.path,
    script_path: row.script_path,
    is_flow: row.is_flow,
    mode: row.mode,
    enabled: row.mode === 'enabled',
    filters: row.filters,
    filter_logic: row.filter_logic,
    error_handler_path: row.error_handler_path,
    error_handler_args: row.error_handler_args,
    retry: row.retry,
    summary: row.summary,
    description: row.description,
    edited_by: row.edited_by,
    edited_at: row.edited_at.toISOString(),
    email: row.email,
    permissioned_as: row.permissioned_as,
    extra_perms: {},
    server_id: row.server_id,
    last_server_ping: row.last_server_ping?.toISOString() ?? null,
    state: row.mode === 'enabled' ? row.state : 'disabled',
    error: row.error,
    error_since: row.error_since?.toISOString() ?? null,
  };
}

/** `event_trigger`: the API's reads and writes, and the listeners' state. */
@Injectable()
export class EventTriggerStore {
  constructor(private readonly lanes: ConnectionLanes) {}

  async find(workspace: string, kind: EventTriggerKind, path: string): Promise<EventTriggerRow | undefined> {
    const [row] = await this.lanes.query<EventTriggerRow>(
      `${SELECT} WHERE workspace_id = $1 AND kind = $2 AND path = $3`,
      [workspace, kind, path],
    );
    return row;
  }

  /** Windmill's list: newest edit first; `scriptPath` the runnable, `pathStart` the trigger's path prefix. */
  list(
    workspace: string,
    kind: EventTriggerKind,
    filter: { scriptPath?: string; isFlow?: boolean; pathStart?: string; limit: number; offset: number },
  ): Promise<EventTriggerRow[]> {
    return this.lanes.query<EventTriggerRow>(
      `${SELECT} WHERE workspace_id = $1 AND kind = $2
         AND ($3::text IS NULL OR script_path = $3)
         AND ($4::boolean IS NULL OR is_flow = $4)
         AND ($5::text IS NULL OR starts_with(path, $5))
       ORDER BY edited_at DESC, path LIMIT $6 OFFSET $7`,
      [
        workspace,
        kind,
        filter.scriptPath ?? null,
        filter.isFlow ?? null,
        filter.pathStart ?? null,
        filter.limit,
        filter.offset,
      ],
    );
  }

  async insert(row: EventTriggerWrite): Promise<EventTriggerRow> {
    const [inserted] = await this.lanes.query<EventTriggerRow>(
      `INSERT INTO event_trigger (${COLUMNS.join(', ')}, state)
       VALUES (${COLUMNS.map((_, index) => `$${index + 1}`).join(', ')},
         CASE WHEN $6 = 'enabled' THEN 'connecting' ELSE 'disabled' END)
       RETURNING ${ALL}`,
      COLUMNS.map((column) => valueOf(row, column)),
    );
    return inserted;
  }

  /** Replaces the trigger at `path` (whose new path is `row.path`); undefined when it is gone. */
  async replace(path: string, row: EventTriggerWrite): Promise<EventTriggerRow | undefined> {
    const [updated] = await this.lanes.query<EventTriggerRow>(
      `UPDATE event_trigger SET ${COLUMNS.map((column, index) => `${column} = $${index + 1}`).join(', ')},
         edited_at = now(), revision = revision + 1, ${freshState('$6')}
       WHERE workspace_id = $${COLUMNS.length + 1} AND kind = $${COLUMNS.length + 2} AND path = $${COLUMNS.length + 3}
       RETURNING ${ALL}`,
      [...COLUMNS.map((column) => valueOf(row, column)), row.workspace_id, row.kind, path],
    );
    return updated;
  }

  async setMode(
    workspace: string,
    kind: EventTriggerKind,
    path: string,
    mode: EventTriggerMode,
  ): Promise<EventTriggerRow | undefined> {
    const [updated] = await this.lanes.query<EventTriggerRow>(
      `UPDATE event_trigger SET mode = $4, edited_at = now(), revision = revision + 1, ${freshState('$4')}
       WHERE workspace_id = $1 AND kind = $2 AND path = $3 RETURNING ${ALL}`,
      [workspace, kind, path, mode],
    );
    return updated;
  }

  /** The deleted row (its token is to be revoked), or undefined. */
  async delete(
    workspace: string,
    kind: EventTriggerKind,
    path: string,
  ): Promise<EventTriggerRow | undefined> {
    const [deleted] = await this.lanes.query<EventTriggerRow>(
      `DELETE FROM event_trigger WHERE workspace_id = $1 AND kind = $2 AND path = $3 RETURNING ${ALL}`,
      [workspace, kind, path],
    );
    return deleted;
  }

  /** Every enabled trigger of the mesh (the replicas' poll: which to listen to). */
  enabled(): Promise<EventTriggerRow[]> {
    return this.lanes.query<EventTriggerRow>(`${SELECT} WHERE mode = 'enabled'`, []);
  }

  /**
   * The listener's state of the trigger at `revision` (a trigger saved since is another
   * listener's business): `error_since` is kept while the error goes on, cleared with it.
   */
  async report(
    key: TriggerKey,
    serverId: string,
    state: EventTriggerState,
    error: string | null,
  ): Promise<void> {
    await this.lanes.query(
      `UPDATE event_trigger SET server_id = $5, last_server_ping = now(), state = $6, error = $7,
         error_since = CASE WHEN $6 <> 'error' THEN NULL WHEN state = 'error' THEN error_since ELSE now() END
       WHERE workspace_id = $1 AND kind = $2 AND path = $3 AND revision = $4`,
      [key.workspace_id, key.kind, key.path, key.revision, serverId, state, error],
    );
  }

  /** The replica's heartbeat on the triggers it listens to. */
  async ping(serverId: string, keys: readonly TriggerKey[]): Promise<void> {
    if (keys.length === 0) return;
    await this.lanes.query(
      `UPDATE event_trigger t SET last_server_ping = now(), server_id = $1
       FROM jsonb_to_recordset($2::jsonb) AS k(workspace_id text, kind text, path text)
       WHERE t.workspace_id = k.workspace_id AND t.kind = k.kind AND t.path = k.path`,
      [serverId, JSON.stringify(keys.map(({ workspace_id, kind, path }) => ({ workspace_id, kind, path })))],
    );
  }
}

/** What names one saved version of a trigger. */
export type TriggerKey = Pick<EventTriggerRow, 'workspace_id' | 'kind' | 'path' | 'revision'>;

function valueOf(row: EventTriggerWrite, column: (typeof COLUMNS)[number]): unknown {
  const value = row[column];
  return JSON_COLUMNS.has(column) && value !== null ? JSON.stringify(value) : value;
}
