import type { NewPostgresTrigger, PostgresResource } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import pg from 'pg';
import { LogicalReplicationService, PgoutputPlugin } from 'pg-logical-replication';
import {
  endSignal,
  type EventListener,
  type ListenerContext,
  type RunningListener,
} from '../event-listener.js';

type Change = {
  tag: 'insert' | 'update' | 'delete';
  relation: { schema: string; name: string };
  new?: Record<string, unknown> | null;
  old?: Record<string, unknown> | null;
  key?: Record<string, unknown> | null;
};
type Log =
  | Change
  | { tag: 'begin'; commitLsn: string | null }
  | { tag: 'commit'; commitEndLsn: string | null }
  | { tag: string };

/**
 * PostgreSQL triggers, Windmill's publication and slot model: the changes of a publication read
 * through a logical replication slot (pgoutput) from the resource's database, which needs
 * `wal_level=logical`. With `publication`, the publication (its tables, its operations) and the
 * slot are created when missing. Each row changed is a run with Windmill's arguments
 * `{transaction_type, schema_name, table_name, row, old_row}`. A transaction is acknowledged to
 * the slot (its end LSN) only once every one of its rows' runs is durably queued; a listener
 * killed before that reads the transaction again from the slot, and each row's run's job id (the
 * slot, the transaction's commit LSN, the row's place in it) makes that a no-op.
 */
@Injectable()
export class PostgresEventListener implements EventListener {
  readonly kind = 'postgres' as const;

  async start(context: ListenerContext): Promise<RunningListener> {
    const resource = context.connection as PostgresResource;
    const config = context.trigger.config as unknown as NewPostgresTrigger;
    const connection = connectionOf(resource);
    await prepare(connection, config);
    const { ended, end } = endSignal();
    const service = new LogicalReplicationService(connection, {
      acknowledge: { auto: false, timeoutSeconds: 0 },
      flowControl: { enabled: true },
    });
    const tracked = new Set(config.publication?.transaction_to_track ?? ['insert', 'update', 'delete']);
    let transaction = { commitLsn: '', index: 0, failed: false };
    service.on('data', async (_lsn: string, log: Log) => {
      if (log.tag === 'begin') {
        transaction = {
          commitLsn: (log as { commitLsn: string | null }).commitLsn ?? '',
          index: 0,
          failed: false,
        };
        return;
      }
      if (log.tag === 'commit') {
        // A transaction one of whose rows started no run is not acknowledged: it is read again.
        if (transaction.failed) return;
        const endLsn = (log as { commitEndLsn: string | null }).commitEndLsn;
        if (endLsn) await service.acknowledge(endLsn);
        return;
      }
      if (log.tag !== 'insert' && log.tag !== 'update' && log.tag !== 'delete') return;
      const change = log as Change;
      const index = transaction.index++;
      if (transaction.failed || !tracked.has(change.tag)) return;
      const row = change.tag === 'delete' ? (change.old ?? change.key ?? {}) : (change.new ?? {});
      const args = {
        transaction_type: change.tag,
        schema_name: change.relation.schema,
        table_name: change.relation.name,
        row,
        ...(change.tag === 'update' && change.old ? { old_row: change.old } : {}),
      };
      try {
        await context.deliver({
          identity: `${config.replication_slot_name}:${transaction.commitLsn}:${index}`,
          payload: Buffer.from(JSON.stringify(args)),
          args,
          info: {},
        });
      } catch (error) {
        transaction.failed = true;
        end(
          new Error(
            `a change of ${change.relation.schema}.${change.relation.name} started no run (${(error as Error).message}); reading the transaction again`,
          ),
        );
      }
    });
    service.on('error', (error: Error) => end(error));
    service.on('start', () => context.listening());
    const plugin = new PgoutputPlugin({ protoVersion: 1, publicationNames: [config.publication_name] });
    service
      .subscribe(plugin, config.replication_slot_name)
      .then(() => end(new Error('the replication stream ended')))
      .catch((error: unknown) => end(error as Error));
    return {
      ended,
      stop: async () => {
        await service.stop().catch(() => undefined);
      },
    };
  }
}

function connectionOf(resource: PostgresResource): pg.ClientConfig {
  const sslmode = resource.sslmode ?? '';
  return {
    host: resource.host,
    port: resource.port ?? 5432,
    user: resource.user,
    database: resource.dbname,
    ...(resource.password ? { password: resource.password } : {}),
    ...(sslmode === '' || sslmode === 'disable' || sslmode === 'allow' || sslmode === 'prefer'
      ? {}
      : {
          ssl: {
            rejectUnauthorized: sslmode === 'verify-ca' || sslmode === 'verify-full',
            ...(resource.root_certificate_pem ? { ca: resource.root_certificate_pem } : {}),
          },
        }),
    connectionTimeoutMillis: 10_000,
  };
}

/** The publication (when the trigger describes it) and the slot, created when missing. */
async function prepare(connection: pg.ClientConfig, config: NewPostgresTrigger): Promise<void> {
  const client = new pg.Client(connection);
  await client.connect();
  try {
    const { rows: level } = await client.query<{ wal_level: string }>('SHOW wal_level');
    if (level[0]?.wal_level !== 'logical') {
      throw new Error(
        `the database's wal_level is ${level[0]?.wal_level}: logical replication needs wal_level=logical`,
      );
    }
    const publication = config.publication;
    const { rowCount: published } = await client.query('SELECT 1 FROM pg_publication WHERE pubname = $1', [
      config.publication_name,
    ]);
    if (!published) {
      if (!publication)
        throw new Error(`no publication ${config.publication_name} (give publication to create it)`);
      const ident = (name: string) => client.escapeIdentifier(name);
      const tables = (publication.table_to_track ?? []).flatMap((schema) =>
        schema.table_to_track.map(
          (table) =>
            `${ident(schema.schema_name)}.${ident(table.table_name)}${table.columns_name ? ` (${table.columns_name.map(ident).join(', ')})` : ''}`,
        ),
      );
      const target = tables.length > 0 ? `FOR TABLE ${tables.join(', ')}` : 'FOR ALL TABLES';
      await client.query(
        `CREATE PUBLICATION ${ident(config.publication_name)} ${target} WITH (publish = ${client.escapeLiteral(publication.transaction_to_track.join(', '))})`,
      );
    }
    const { rowCount: slotted } = await client.query(
      'SELECT 1 FROM pg_replication_slots WHERE slot_name = $1',
      [config.replication_slot_name],
    );
    if (!slotted) {
      await client.query(`SELECT pg_create_logical_replication_slot($1, 'pgoutput')`, [
        config.replication_slot_name,
      ]);
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}
