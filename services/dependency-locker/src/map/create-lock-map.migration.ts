import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The lock of each unit of code (a script, a flow step, an agent tool) as last deployed, the
 * dependency map between owners, and the queue of lock jobs (deploys now, cascades debounced).
 */
export class CreateLockMap1764800000000 implements MigrationInterface {
  name = 'CreateLockMap1764800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "lock_record" (
        "workspace" text NOT NULL,
        "owner_kind" text NOT NULL,
        "owner_path" text NOT NULL,
        "node_id" text NOT NULL,
        "owner_version" text NOT NULL,
        "language" text NOT NULL,
        "content" text NOT NULL,
        "code_sha256" text NOT NULL,
        "lock" text,
        "lock_sha256" text,
        "status" text NOT NULL,
        "error_log" text,
        "locked_at" timestamptz,
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY ("workspace", "owner_kind", "owner_path", "node_id")
      )`);
    await queryRunner.query(`
      CREATE TABLE "dependency_edge" (
        "workspace" text NOT NULL,
        "importer_kind" text NOT NULL,
        "importer_path" text NOT NULL,
        "importer_node_id" text NOT NULL,
        "edge_kind" text NOT NULL,
        "imported_kind" text NOT NULL,
        "imported_path" text NOT NULL,
        "imported_lock_sha256" text,
        PRIMARY KEY ("workspace", "importer_kind", "importer_path", "importer_node_id", "edge_kind", "imported_kind", "imported_path")
      )`);
    await queryRunner.query(
      `CREATE INDEX "dependency_edge_imported" ON "dependency_edge" ("workspace", "imported_kind", "imported_path")`,
    );
    await queryRunner.query(`
      CREATE TABLE "lock_job" (
        "id" bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        "workspace" text NOT NULL,
        "owner_kind" text NOT NULL,
        "owner_path" text NOT NULL,
        "debounce_key" text NOT NULL,
        "action" text NOT NULL,
        "cause" text NOT NULL,
        "node_ids" text[],
        "cascade_root" text,
        "because_of" text,
        "edge_kind" text,
        "depth" int NOT NULL DEFAULT 0,
        "already_visited" text[] NOT NULL DEFAULT '{}',
        "not_before" timestamptz NOT NULL,
        "status" text NOT NULL DEFAULT 'queued',
        "attempts" int NOT NULL DEFAULT 0,
        "claimed_at" timestamptz,
        "finished_at" timestamptz,
        "outcome" text,
        "created_at" timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "lock_job_queued_key" ON "lock_job" ("debounce_key") WHERE "status" = 'queued'`,
    );
    await queryRunner.query(
      `CREATE INDEX "lock_job_due" ON "lock_job" ("not_before") WHERE "status" = 'queued'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "lock_job"`);
    await queryRunner.query(`DROP TABLE "dependency_edge"`);
    await queryRunner.query(`DROP TABLE "lock_record"`);
  }
}
