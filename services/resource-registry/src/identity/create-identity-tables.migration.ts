import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Accounts, workspaces and their members, groups, folders and API tokens. Tokens are stored as
 * a SHA-256 hash only; the token itself is shown once at creation and never kept.
 */
export class CreateIdentityTables1700000001000 implements MigrationInterface {
  name = 'CreateIdentityTables1700000001000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "account" (
        "email" text PRIMARY KEY,
        "is_super_admin" boolean NOT NULL DEFAULT false,
        "created_at" timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE "workspace" (
        "id" text PRIMARY KEY,
        "name" text NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE "workspace_user" (
        "workspace_id" text NOT NULL REFERENCES "workspace" ("id") ON DELETE CASCADE,
        "username" text NOT NULL,
        "email" text NOT NULL REFERENCES "account" ("email") ON DELETE CASCADE,
        "is_admin" boolean NOT NULL DEFAULT false,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY ("workspace_id", "username"),
        CONSTRAINT "UQ_workspace_user_email" UNIQUE ("workspace_id", "email")
      )`);
    await queryRunner.query(`
      CREATE TABLE "workspace_group" (
        "workspace_id" text NOT NULL REFERENCES "workspace" ("id") ON DELETE CASCADE,
        "name" text NOT NULL,
        "summary" text NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY ("workspace_id", "name")
      )`);
    await queryRunner.query(`
      CREATE TABLE "group_member" (
        "workspace_id" text NOT NULL,
        "group_name" text NOT NULL,
        "username" text NOT NULL,
        PRIMARY KEY ("workspace_id", "group_name", "username"),
        FOREIGN KEY ("workspace_id", "group_name") REFERENCES "workspace_group" ("workspace_id", "name") ON DELETE CASCADE,
        FOREIGN KEY ("workspace_id", "username") REFERENCES "workspace_user" ("workspace_id", "username") ON DELETE CASCADE
      )`);
    // Authentication reads a member's groups on every request.
    await queryRunner.query(
      `CREATE INDEX "IDX_group_member_user" ON "group_member" ("workspace_id", "username")`,
    );
    await queryRunner.query(`
      CREATE TABLE "folder" (
        "workspace_id" text NOT NULL REFERENCES "workspace" ("id") ON DELETE CASCADE,
        "name" text NOT NULL,
        "summary" text NULL,
        "owners" text[] NOT NULL DEFAULT '{}',
        "writers" text[] NOT NULL DEFAULT '{}',
        "readers" text[] NOT NULL DEFAULT '{}',
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY ("workspace_id", "name")
      )`);
    await queryRunner.query(`
      CREATE TABLE "api_token" (
        "id" uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        "token_hash" text NOT NULL,
        "prefix" text NOT NULL,
        "email" text NOT NULL REFERENCES "account" ("email") ON DELETE CASCADE,
        "label" text NULL,
        "scopes" text[] NULL,
        "expires_at" timestamptz NULL,
        "revoked_at" timestamptz NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "UQ_api_token_hash" UNIQUE ("token_hash")
      )`);
    await queryRunner.query(`CREATE INDEX "IDX_api_token_email" ON "api_token" ("email")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of [
      'api_token',
      'folder',
      'group_member',
      'workspace_group',
      'workspace_user',
      'workspace',
      'account',
    ]) {
      await queryRunner.query(`DROP TABLE "${table}"`);
    }
  }
}
