import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The engine's tables. `job` holds every job of the tree (flow runs, steps, iterations,
 * branches, script runs) with the flow's `flow_status` as jsonb on the flow job; `runtime` is
 * the engine's private state of a job (tag inheritance, sleep/retry deadlines, early result);
 * `wake_at` is when a parked job is due; `lease_*` say which process drives a flow job now, and
 * `wake_seq` counts wake-ups so a driver about to park notices one that raced it.
 */
export class CreateJobTables1700000010000 implements MigrationInterface {
  name = 'CreateJobTables1700000010000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE job (
        id uuid PRIMARY KEY,
        workspace text NOT NULL,
        kind text NOT NULL,
        parent_job uuid NULL,
        root_job uuid NOT NULL,
        path text NULL,
        script_hash text NULL,
        flow_step_id text NULL,
        language text NULL,
        raw_code text NULL,
        raw_lock text NULL,
        raw_flow jsonb NULL,
        args jsonb NOT NULL DEFAULT '{}'::jsonb,
        status text NOT NULL,
        result jsonb NULL,
        flow_status jsonb NULL,
        runtime jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_by text NOT NULL,
        on_behalf_of text NOT NULL,
        email text NOT NULL DEFAULT '',
        tag text NOT NULL,
        priority double precision NULL,
        skipped boolean NOT NULL DEFAULT false,
        canceled_by text NULL,
        canceled_reason text NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        scheduled_for timestamptz NULL,
        started_at timestamptz NULL,
        completed_at timestamptz NULL,
        duration_ms integer NULL,
        wake_at timestamptz NULL,
        lease_owner text NULL,
        lease_until timestamptz NULL,
        wake_seq integer NOT NULL DEFAULT 0,
        delete_after timestamptz NULL
      )`);
    await queryRunner.query(`CREATE INDEX job_root_step ON job (root_job, flow_step_id)`);
    await queryRunner.query(`CREATE INDEX job_parent ON job (parent_job)`);
    await queryRunner.query(
      `CREATE INDEX job_workspace_roots ON job (workspace, created_at DESC) WHERE parent_job IS NULL`,
    );
    await queryRunner.query(`CREATE INDEX job_wake ON job (wake_at) WHERE wake_at IS NOT NULL`);
    await queryRunner.query(
      `CREATE INDEX job_delete_after ON job (delete_after) WHERE delete_after IS NOT NULL`,
    );

    // The token a job (and the jobs it runs) acts with; never returned by any API.
    await queryRunner.query(`
      CREATE TABLE job_token (
        job_id uuid PRIMARY KEY,
        token text NOT NULL,
        expires_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`
      CREATE TABLE job_log (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        job_id uuid NOT NULL,
        chunk text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX job_log_job ON job_log (job_id, id)`);
    await queryRunner.query(`
      CREATE TABLE job_resume (
        suspended_job uuid NOT NULL,
        resume_id integer NOT NULL,
        flow_job uuid NOT NULL,
        approver text NULL,
        approved boolean NOT NULL,
        value jsonb NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (suspended_job, resume_id)
      )`);
    await queryRunner.query(`
      CREATE TABLE result_cache (
        key text PRIMARY KEY,
        result jsonb NULL,
        expires_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`
      CREATE TABLE concurrency_slot (
        key text NOT NULL,
        job_id uuid NOT NULL,
        started_at timestamptz NOT NULL DEFAULT now(),
        ended_at timestamptz NULL,
        PRIMARY KEY (key, job_id)
      )`);
    await queryRunner.query(`
      CREATE TABLE debounce_key (
        key text PRIMARY KEY,
        job_id uuid NOT NULL,
        first_at timestamptz NOT NULL,
        debounced_times integer NOT NULL DEFAULT 0
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of [
      'debounce_key',
      'concurrency_slot',
      'result_cache',
      'job_resume',
      'job_log',
      'job_token',
      'job',
    ]) {
      await queryRunner.query(`DROP TABLE ${table}`);
    }
  }
}
