import type { MigrationInterface, QueryRunner } from 'typeorm';

/** `draft`: per-user drafts of resources, scripts and flows. */
export class CreateDraft1700000003100 implements MigrationInterface {
  name = 'CreateDraft1700000003100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "draft" (
        "id" uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        "workspace_id" text NOT NULL REFERENCES "workspace" ("id") ON DELETE CASCADE,
        "item_kind" text NOT NULL CHECK ("item_kind" IN ('resource', 'script', 'flow')),
        "path" text NOT NULL,
        "username" text NOT NULL,
        "value" jsonb NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "UQ_draft_item_user" UNIQUE ("workspace_id", "item_kind", "path", "username")
      )`);
    // The review list: one user's drafts in a workspace.
    await queryRunner.query(`CREATE INDEX "IDX_draft_user" ON "draft" ("workspace_id", "username")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "draft"`);
  }
}
