import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tickets for a memory (memory id, step): the agent step holding it (`held`) and the ones waiting
 * their turn, in `seq` order. Each ticket is a lease its agent-runtime renews; one not renewed by
 * `expires_at` is dropped by the next ask on its memory, so a step whose process died never blocks it.
 */
export class AddMemoryLocks1765100000000 implements MigrationInterface {
  name = 'AddMemoryLocks1765100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "ai_agent_memory_lock" (
        "workspace_id" text NOT NULL,
        "memory_id" uuid NOT NULL,
        "step_id" text NOT NULL,
        "job_id" uuid NOT NULL,
        "root_job" uuid NOT NULL,
        "seq" bigserial NOT NULL,
        "held" boolean NOT NULL DEFAULT false,
        "expires_at" timestamptz NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "PK_ai_agent_memory_lock" PRIMARY KEY ("workspace_id", "memory_id", "step_id", "job_id")
      )`);
    // At most one holder per memory.
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_ai_agent_memory_lock_holder" ON "ai_agent_memory_lock" ("workspace_id", "memory_id", "step_id") WHERE "held"`,
    );
    // Renewals and releases name the steps only.
    await queryRunner.query(
      `CREATE INDEX "IDX_ai_agent_memory_lock_job" ON "ai_agent_memory_lock" ("job_id")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "ai_agent_memory_lock"`);
  }
}
