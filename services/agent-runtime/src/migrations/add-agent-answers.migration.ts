import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A running step keeps each model answer on its row the moment it arrives (`answers`, by call
 * key), so a replica that runs it again never asks the model for an answer it had already received.
 */
export class AddAgentAnswers1764800000000 implements MigrationInterface {
  name = 'AddAgentAnswers1764800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "agent_run" ADD COLUMN "answers" jsonb NOT NULL DEFAULT '{}'::jsonb`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "agent_run" DROP COLUMN "answers"`);
  }
}
