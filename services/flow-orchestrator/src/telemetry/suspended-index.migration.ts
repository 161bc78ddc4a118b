import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The parked-approvals gauge counts suspended jobs at every scrape (`flowmesh.approvals.parked`):
 * without an index that is a scan of the whole job table, which only grows. Partial: only runs
 * waiting for an approval or an answer are suspended.
 */
export class SuspendedJobsIndex1700000030000 implements MigrationInterface {
  name = 'SuspendedJobsIndex1700000030000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX job_suspended ON job (kind) WHERE status = 'suspended'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX job_suspended`);
  }
}
