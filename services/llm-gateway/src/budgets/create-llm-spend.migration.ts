import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `llm_spend`: one row per workspace, flow, run and API token that made a model call or has a
 * budget: its limits, what it spent, and the estimates of its calls in flight (`reserved_*`).
 */
export class CreateLlmSpend1700000400000 implements MigrationInterface {
  name = 'CreateLlmSpend1700000400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "llm_spend" (
        "workspace" text NOT NULL,
        "scope" text NOT NULL,
        "target" text NOT NULL,
        "max_tokens" bigint NULL,
        "max_usd" numeric(24, 10) NULL,
        "spent_tokens" bigint NOT NULL DEFAULT 0,
        "spent_usd" numeric(24, 10) NOT NULL DEFAULT 0,
        "reserved_tokens" bigint NOT NULL DEFAULT 0,
        "reserved_usd" numeric(24, 10) NOT NULL DEFAULT 0,
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY ("workspace", "scope", "target")
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "llm_spend"`);
  }
}
