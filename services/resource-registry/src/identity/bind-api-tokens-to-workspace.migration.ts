import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An API token made inside a workspace works only there. Without this, an admin of one
 * workspace could add someone who is also in another workspace, make a token for them, and use it
 * in that other workspace. Null: valid in every workspace of its account (the first admin's).
 */
export class BindApiTokensToWorkspace1700000001100 implements MigrationInterface {
  name = 'BindApiTokensToWorkspace1700000001100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "api_token" ADD COLUMN "workspace_id" text NULL REFERENCES "workspace" ("id") ON DELETE CASCADE`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "api_token" DROP COLUMN "workspace_id"`);
  }
}
