import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Resource types, resources, variables, scripts (a path and its immutable versions) and flows
 * (with their versions). A secret variable's row holds only its ciphertext and key id: the
 * check constraint makes a plaintext secret impossible to store.
 */
export class CreateItemTables1700000002000 implements MigrationInterface {
  name = 'CreateItemTables1700000002000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const workspace = `"workspace_id" text NOT NULL REFERENCES "workspace" ("id") ON DELETE CASCADE`;
    await queryRunner.query(`
      CREATE TABLE "resource_type" (
        ${workspace},
        "name" text NOT NULL,
        "schema" jsonb NOT NULL,
        "description" text NULL,
        "builtin" boolean NOT NULL DEFAULT false,
        "created_by" text NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "edited_at" timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY ("workspace_id", "name")
      )`);
    await queryRunner.query(`
      CREATE TABLE "resource" (
        ${workspace},
        "path" text NOT NULL,
        "resource_type" text NOT NULL,
        "value" jsonb NOT NULL,
        "description" text NULL,
        "created_by" text NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "edited_by" text NOT NULL,
        "edited_at" timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY ("workspace_id", "path")
      )`);
    // Deleting a type asks whether any resource still uses it.
    await queryRunner.query(
      `CREATE INDEX "IDX_resource_type" ON "resource" ("workspace_id", "resource_type")`,
    );
    await queryRunner.query(`
      CREATE TABLE "variable" (
        ${workspace},
        "path" text NOT NULL,
        "is_secret" boolean NOT NULL,
        "value" text NULL,
        "key_id" text NULL,
        "ciphertext" bytea NULL,
        "description" text NULL,
        "created_by" text NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "edited_by" text NOT NULL,
        "edited_at" timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY ("workspace_id", "path"),
        CONSTRAINT "CHK_variable_secret_sealed" CHECK (
          ("is_secret" AND "value" IS NULL AND "key_id" IS NOT NULL AND "ciphertext" IS NOT NULL)
          OR (NOT "is_secret" AND "value" IS NOT NULL AND "key_id" IS NULL AND "ciphertext" IS NULL)
        )
      )`);
    await queryRunner.query(`
      CREATE TABLE "script_version" (
        ${workspace},
        "hash" text NOT NULL,
        "path" text NOT NULL,
        "parent_hash" text NULL,
        "language" text NOT NULL,
        "content" text NOT NULL,
        "lock" text NULL,
        "schema" jsonb NULL,
        "created_by" text NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY ("workspace_id", "hash")
      )`);
    await queryRunner.query(
      `CREATE INDEX "IDX_script_version_path" ON "script_version" ("workspace_id", "path", "created_at")`,
    );
    await queryRunner.query(`
      CREATE TABLE "script" (
        ${workspace},
        "path" text NOT NULL,
        "current_hash" text NOT NULL,
        "summary" text NOT NULL DEFAULT '',
        "description" text NULL,
        "created_by" text NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "edited_by" text NOT NULL,
        "edited_at" timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY ("workspace_id", "path"),
        FOREIGN KEY ("workspace_id", "current_hash") REFERENCES "script_version" ("workspace_id", "hash")
      )`);
    await queryRunner.query(`
      CREATE TABLE "flow" (
        ${workspace},
        "path" text NOT NULL,
        "summary" text NOT NULL DEFAULT '',
        "description" text NULL,
        "value" jsonb NOT NULL,
        "schema" jsonb NULL,
        "version_id" bigint NOT NULL,
        "created_by" text NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "edited_by" text NOT NULL,
        "edited_at" timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY ("workspace_id", "path")
      )`);
    await queryRunner.query(`
      CREATE TABLE "flow_version" (
        "id" bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        ${workspace},
        "path" text NOT NULL,
        "summary" text NOT NULL DEFAULT '',
        "description" text NULL,
        "value" jsonb NOT NULL,
        "schema" jsonb NULL,
        "created_by" text NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(
      `CREATE INDEX "IDX_flow_version_path" ON "flow_version" ("workspace_id", "path", "id")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of [
      'flow_version',
      'flow',
      'script',
      'script_version',
      'variable',
      'resource',
      'resource_type',
    ]) {
      await queryRunner.query(`DROP TABLE "${table}"`);
    }
  }
}
