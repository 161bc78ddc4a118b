import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A running step keeps its progress on its row, so a replica that takes it over goes on from its
 * last turn instead of its start: `progress` is the loop's state when the model last asked for
 * tools, `calls` what became of each of those calls since (its tool job, its result).
 */
export class AddAgentProgress1764700000000 implements MigrationInterface {
  name = 'AddAgentProgress1764700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE "agent_run"
        ADD COLUMN "progress" jsonb NULL,
        ADD COLUMN "calls" jsonb NOT NULL DEFAULT '{}'::jsonb`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "agent_run" DROP COLUMN "progress", DROP COLUMN "calls"`);
  }
}
