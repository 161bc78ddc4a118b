import type { MigrationInterface, QueryRunner } from 'typeorm';

/** `llm_call_audit`: one row per provider call. */
export class CreateLlmCallAudit1700000100000 implements MigrationInterface {
  name = 'CreateLlmCallAudit1700000100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "llm_call_audit" (
        "id" bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "workspace" text NOT NULL,
        "identity" text NOT NULL,
        "identity_kind" text NOT NULL,
        "job_id" text NULL,
        "source" text NOT NULL,
        "operation" text NOT NULL,
        "resource" text NOT NULL,
        "provider" text NOT NULL,
        "model" text NOT NULL,
        "response_model" text NULL,
        "stream" boolean NOT NULL,
        "input_tokens" integer NULL,
        "output_tokens" integer NULL,
        "cache_read_tokens" integer NULL,
        "cache_write_tokens" integer NULL,
        "reasoning_tokens" integer NULL,
        "status" text NOT NULL,
        "http_status" integer NULL,
        "error_class" text NULL,
        "latency_ms" integer NOT NULL,
        "time_to_first_chunk_ms" integer NULL,
        "request_body" jsonb NULL,
        "response_body" jsonb NULL
      )`);
    // Usage reports read a workspace's calls by time.
    await queryRunner.query(
      `CREATE INDEX "IDX_llm_call_audit_workspace_created" ON "llm_call_audit" ("workspace", "created_at")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "llm_call_audit"`);
  }
}
