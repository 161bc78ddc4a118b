import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The last check of each agent tool against the script it runs by path (`locker.lock.status`). */
export class CreateToolRevalidation1765000000000 implements MigrationInterface {
  name = 'CreateToolRevalidation1765000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "tool_revalidation" (
        "workspace" text NOT NULL,
        "owner_kind" text NOT NULL,
        "owner_path" text NOT NULL,
        "node_id" text NOT NULL,
        "because_of" text NOT NULL,
        "status" text NOT NULL,
        "error_log" text,
        "checked_at" timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY ("workspace", "owner_kind", "owner_path", "node_id")
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "tool_revalidation"`);
  }
}
