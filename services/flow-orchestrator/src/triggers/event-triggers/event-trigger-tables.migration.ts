import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Event triggers (NATS, AMQP, MQTT): one table, the kind a column of the key (Windmill keeps a
 * table per kind; their common fields and listener state are the same, and one table is one
 * poll for every replica). `config` holds the kind's own fields (`subjects`, `queue_name`, ...); `revision`
 * counts saves, so a listener knows the version it was started for.
 * `owner_token_*` is the sealed API token of the last editor, whom the runs act as. The listener's
 * state: `server_id` (the replica that holds the trigger's lease), `last_server_ping`, `state`,
 * `error` and `error_since`.
 */
export class EventTriggerTables1700000054000 implements MigrationInterface {
  name = 'EventTriggerTables1700000054000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE event_trigger (
        workspace_id text NOT NULL,
        kind text NOT NULL,
        path text NOT NULL,
        script_path text NOT NULL,
        is_flow boolean NOT NULL,
        mode text NOT NULL,
        config jsonb NOT NULL,
        filters jsonb NOT NULL DEFAULT '[]',
        filter_logic text NOT NULL DEFAULT 'and',
        summary text NULL,
        description text NULL,
        edited_by text NOT NULL,
        email text NOT NULL,
        edited_at timestamptz NOT NULL DEFAULT now(),
        revision bigint NOT NULL DEFAULT 1,
        permissioned_as text NOT NULL,
        owner_token_sealed text NOT NULL,
        owner_token_prefix text NOT NULL,
        server_id text NULL,
        last_server_ping timestamptz NULL,
        state text NOT NULL DEFAULT 'connecting',
        error text NULL,
        error_since timestamptz NULL,
        PRIMARY KEY (workspace_id, kind, path)
      )`);
    await queryRunner.query(
      `CREATE INDEX event_trigger_enabled ON event_trigger (kind) WHERE mode = 'enabled'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE event_trigger`);
  }
}
