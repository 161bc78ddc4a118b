import type { MigrationInterface, QueryRunner } from 'typeorm';

/** `resource_version`: the history of resource values, the newest kept, per resource. */
export class CreateResourceVersion1700000003000 implements MigrationInterface {
  name = 'CreateResourceVersion1700000003000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "resource_version" (
        "id" bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        "workspace_id" text NOT NULL,
        "path" text NOT NULL,
        "version" integer NOT NULL,
        "resource_type" text NOT NULL,
        "value" jsonb NOT NULL,
        "description" text NULL,
        "created_by" text NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "restored_from" integer NULL,
        CONSTRAINT "UQ_resource_version" UNIQUE ("workspace_id", "path", "version"),
        -- A rename carries the history along; deleting a resource deletes its history, so an
        -- inline credential it once held does not outlive it.
        CONSTRAINT "FK_resource_version_resource" FOREIGN KEY ("workspace_id", "path")
          REFERENCES "resource" ("workspace_id", "path") ON UPDATE CASCADE ON DELETE CASCADE
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "resource_version"`);
  }
}
