import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Locks by the requirements they were resolved for: the same requirements get the same lock. */
export class CreateLockfiles1764700000000 implements MigrationInterface {
  name = 'CreateLockfiles1764700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "lockfile" (
        "requirements_key" text PRIMARY KEY,
        "language" text NOT NULL,
        "hash" text NOT NULL,
        "requirements" jsonb NOT NULL,
        "lockfile" jsonb NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "lockfile"`);
  }
}
