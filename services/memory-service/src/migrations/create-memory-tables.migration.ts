import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Agent memory and chat conversations. The connection's search_path is the service's schema, so
 * the tables land there.
 */
export class CreateMemoryTables1733500000000 implements MigrationInterface {
  name = 'CreateMemoryTables1733500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // One row per (memory id, step). `messages` holds the memory itself for the database store
    // and is null when the memory is an object in S3; the row then still carries the version,
    // so replaces stay serialized and each save learns the version it replaced.
    await queryRunner.query(`
      CREATE TABLE "ai_agent_memory" (
        "workspace_id" text NOT NULL,
        "memory_id" uuid NOT NULL,
        "step_id" text NOT NULL,
        "flow_path" text NOT NULL,
        "version" integer NOT NULL,
        "store" text NOT NULL CHECK ("store" IN ('database', 's3')),
        "messages" jsonb NULL,
        "message_count" integer NOT NULL,
        "size_bytes" integer NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "PK_ai_agent_memory" PRIMARY KEY ("workspace_id", "memory_id", "step_id"),
        CONSTRAINT "CHK_ai_agent_memory_messages" CHECK (("store" = 'database') = ("messages" IS NOT NULL))
      )`);
    await queryRunner.query(
      `CREATE INDEX "IDX_ai_agent_memory_listing" ON "ai_agent_memory" ("workspace_id", "flow_path", "updated_at" DESC)`,
    );

    await queryRunner.query(`
      CREATE TABLE "flow_conversation" (
        "workspace_id" text NOT NULL,
        "id" uuid NOT NULL,
        "flow_path" text NOT NULL,
        "title" text NULL,
        "message_count" integer NOT NULL DEFAULT 0,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "PK_flow_conversation" PRIMARY KEY ("workspace_id", "id")
      )`);
    await queryRunner.query(
      `CREATE INDEX "IDX_flow_conversation_listing" ON "flow_conversation" ("workspace_id", "flow_path", "updated_at" DESC)`,
    );
    await queryRunner.query(`
      CREATE TABLE "flow_conversation_message" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "workspace_id" text NOT NULL,
        "conversation_id" uuid NOT NULL,
        "seq" integer NOT NULL,
        "role" text NOT NULL CHECK ("role" IN ('user', 'assistant', 'tool', 'system')),
        "content" text NOT NULL,
        "job_id" text NOT NULL,
        "step_id" text NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "PK_flow_conversation_message" PRIMARY KEY ("id"),
        CONSTRAINT "UQ_flow_conversation_message_seq" UNIQUE ("workspace_id", "conversation_id", "seq"),
        CONSTRAINT "FK_flow_conversation_message_conversation" FOREIGN KEY ("workspace_id", "conversation_id")
          REFERENCES "flow_conversation" ("workspace_id", "id") ON DELETE CASCADE
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "flow_conversation_message"`);
    await queryRunner.query(`DROP TABLE "flow_conversation"`);
    await queryRunner.query(`DROP TABLE "ai_agent_memory"`);
  }
}
