import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `llm_recording`: a run's recording (`record`) or a replay's uploaded copy (`replay`, with the
 * first request that differed); `llm_recorded_call`: its answered calls in order. Both keyed by
 * workspace first: a recording is read and written only in the workspace of its run.
 */
export class CreateLlmRecordings1700000300000 implements MigrationInterface {
  name = 'CreateLlmRecordings1700000300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "llm_recording" (
        "workspace" text NOT NULL,
        "id" uuid NOT NULL,
        "mode" text NOT NULL,
        "mismatch" jsonb NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY ("workspace", "id")
      )`);
    await queryRunner.query(`
      CREATE TABLE "llm_recorded_call" (
        "workspace" text NOT NULL,
        "recording_id" uuid NOT NULL,
        "seq" integer NOT NULL,
        "operation" text NOT NULL,
        "digest" text NOT NULL,
        "occurrence" integer NOT NULL,
        -- json, not jsonb: kept as written, so a recording file reads in the order it was made.
        "request" json NOT NULL,
        "answer" json NOT NULL,
        "used" boolean NOT NULL DEFAULT false,
        PRIMARY KEY ("workspace", "recording_id", "seq"),
        FOREIGN KEY ("workspace", "recording_id") REFERENCES "llm_recording" ("workspace", "id") ON DELETE CASCADE
      )`);
    // A replay finds the next unused answer to a request by its digest.
    await queryRunner.query(
      `CREATE INDEX "IDX_llm_recorded_call_digest" ON "llm_recorded_call" ("workspace", "recording_id", "digest", "occurrence")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "llm_recorded_call"`);
    await queryRunner.query(`DROP TABLE "llm_recording"`);
  }
}
