import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `job_flow_module`: the module statuses of a large flow, a row each, so that a step rewrites
 * the modules that changed instead of the whole `flow_status` (issue 34: a flow of 10 000 modules
 * wrote 1.6 MB of JSON per commit). Reads put them back into `flow_status` (job-columns.ts).
 */
export class FlowModuleRows1700000065000 implements MigrationInterface {
  name = 'FlowModuleRows1700000065000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE job_flow_module (
         job_id uuid NOT NULL REFERENCES job (id) ON DELETE CASCADE,
         idx integer NOT NULL,
         status jsonb NOT NULL,
         PRIMARY KEY (job_id, idx)
       )`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE job_flow_module`);
  }
}
