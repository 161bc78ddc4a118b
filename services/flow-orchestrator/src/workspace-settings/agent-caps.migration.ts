import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The caps of agent steps in `workspace_settings` (null: the default). */
export class WorkspaceAgentCaps1700000070000 implements MigrationInterface {
  name = 'WorkspaceAgentCaps1700000070000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE workspace_settings
         ADD COLUMN max_agent_iterations integer CHECK (max_agent_iterations > 0),
         ADD COLUMN max_agent_tool_calls integer CHECK (max_agent_tool_calls > 0),
         ADD COLUMN max_agent_depth integer CHECK (max_agent_depth > 0)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE workspace_settings
         DROP COLUMN max_agent_iterations, DROP COLUMN max_agent_tool_calls, DROP COLUMN max_agent_depth`,
    );
  }
}
