import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The agent steps this service accepted. A row is written before the step is acknowledged to
 * the orchestrator and removed once the orchestrator has its outcome, so a step survives the
 * replica that runs it: another replica claims it when its lease runs out.
 */
export class CreateAgentRuns1764500000000 implements MigrationInterface {
  name = 'CreateAgentRuns1764500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "agent_run" (
        "job_id" uuid PRIMARY KEY,
        "workspace" text NOT NULL,
        "request" jsonb NOT NULL,
        "job_token" text NOT NULL,
        "outcome" jsonb NULL,
        "attempts" integer NOT NULL DEFAULT 0,
        "owner" text NULL,
        "lease_until" timestamptz NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX "IDX_agent_run_lease" ON "agent_run" ("lease_until")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "agent_run"`);
  }
}
