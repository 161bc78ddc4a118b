import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes for the lease queries, which run on every process all the time: renewing this
 * process's leases (`WHERE lease_owner = $1`, every few seconds) and finding leases that lapsed
 * (`WHERE lease_owner IS NOT NULL AND lease_until < ...`, every timer poll). Without them each
 * is a scan of the whole job table, which only grows. Partial: only flows being driven have a
 * lease, a few rows among millions.
 */
export class LeaseIndexes1700000020000 implements MigrationInterface {
  name = 'LeaseIndexes1700000020000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX job_lease_owner ON job (lease_owner) WHERE lease_owner IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX job_lease_until ON job (lease_until) WHERE lease_owner IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX job_lease_until`);
    await queryRunner.query(`DROP INDEX job_lease_owner`);
  }
}
