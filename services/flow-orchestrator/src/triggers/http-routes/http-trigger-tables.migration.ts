import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * HTTP routes (Windmill's `http_trigger`). `route_key` is what two routes share when they would
 * answer the same requests (`<workspace>/` for a workspaced route, then the route with each
 * parameter as `:`), unique per method, so a clash is refused by Postgres whatever the race.
 * `owner_token_*` is the sealed API token of the last editor the route's runs act as.
 * `http_trigger_version` counts changes, bumped in the writing transaction: every orchestrator
 * replica compares it with the version its in-memory route table was built from.
 */
export class HttpTriggerTables1700000052000 implements MigrationInterface {
  name = 'HttpTriggerTables1700000052000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE http_trigger (
        workspace_id text NOT NULL,
        path text NOT NULL,
        route_path text NOT NULL,
        route_path_key text NOT NULL,
        route_key text NOT NULL,
        script_path text NOT NULL,
        is_flow boolean NOT NULL,
        http_method text NOT NULL,
        request_type text NOT NULL,
        authentication_method text NOT NULL,
        authentication_resource_path text NULL,
        workspaced_route boolean NOT NULL,
        wrap_body boolean NOT NULL,
        raw_string boolean NOT NULL,
        summary text NULL,
        description text NULL,
        mode text NOT NULL,
        edited_by text NOT NULL,
        email text NOT NULL,
        edited_at timestamptz NOT NULL DEFAULT now(),
        permissioned_as text NOT NULL,
        owner_token_sealed text NOT NULL,
        owner_token_prefix text NOT NULL,
        PRIMARY KEY (workspace_id, path)
      )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX http_trigger_route ON http_trigger (route_key, http_method)`,
    );
    await queryRunner.query(
      `CREATE TABLE http_trigger_version (id boolean PRIMARY KEY DEFAULT true CHECK (id), version bigint NOT NULL)`,
    );
    await queryRunner.query(`INSERT INTO http_trigger_version (id, version) VALUES (true, 1)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE http_trigger_version`);
    await queryRunner.query(`DROP TABLE http_trigger`);
  }
}
