import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `workspace_settings`: a workspace's engine limits (`orchestrator.workspace_settings.*`). A
 * column per setting, null for the default, so a new setting is a column and a default that
 * changes reaches every workspace that never set it.
 */
export class WorkspaceSettingsTable1700000060000 implements MigrationInterface {
  name = 'WorkspaceSettingsTable1700000060000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE workspace_settings (
         workspace text PRIMARY KEY,
         max_loop_iterations integer CHECK (max_loop_iterations > 0),
         max_flow_modules integer CHECK (max_flow_modules > 0),
         updated_by text NOT NULL,
         updated_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE workspace_settings`);
  }
}
