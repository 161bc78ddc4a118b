import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What started a run, as Windmill keeps it on the job: `trigger_kind` (schedule, webhook, http,
 * ...) and `trigger_path` (the schedule's or route's path, the item's own for a webhook). Null for
 * a caller's run and for every step job, so the columns cost the engine's writes nothing.
 */
export class JobTriggerColumns1700000040000 implements MigrationInterface {
  name = 'JobTriggerColumns1700000040000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE job ADD COLUMN trigger_kind text NULL, ADD COLUMN trigger_path text NULL`,
    );
    // The runs of one trigger, newest first (a schedule's last run, a route's runs in the UI).
    await queryRunner.query(
      `CREATE INDEX job_trigger ON job (workspace, trigger_kind, trigger_path, created_at DESC) WHERE trigger_kind IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX job_trigger`);
    await queryRunner.query(`ALTER TABLE job DROP COLUMN trigger_path, DROP COLUMN trigger_kind`);
  }
}
