import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A step parked on its agent's request (tools that need approval, a question) keeps its
 * checkpoint on its row: `waiting` while an answer is taken, `answer` once given. The row's lease
 * runs until the request times out, so whichever replica claims it first (at the answer, or at the
 * timeout) resumes the agent.
 */
export class AddAgentCheckpoints1764600000000 implements MigrationInterface {
  name = 'AddAgentCheckpoints1764600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE "agent_run"
        ADD COLUMN "checkpoint" jsonb NULL,
        ADD COLUMN "waiting" jsonb NULL,
        ADD COLUMN "answer" jsonb NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE "agent_run" DROP COLUMN "checkpoint", DROP COLUMN "waiting", DROP COLUMN "answer"`);
  }
}
