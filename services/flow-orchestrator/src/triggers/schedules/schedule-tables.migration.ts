import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Schedules (`schedule`, Windmill's columns plus the owner's sealed token and the next tick) and
 * the runs they started (`schedule_run`). The primary key of `schedule_run` is the guard that one
 * tick never makes two runs: a tick's row is written in the transaction that claims the schedule
 * and moves `next_fire_at` on, and its job id is derived from the tick (uuid v5), so a replica
 * that repeats the tick after a crash starts nothing new.
 */
export class ScheduleTables1700000051000 implements MigrationInterface {
  name = 'ScheduleTables1700000051000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE schedule (
        workspace_id text NOT NULL,
        path text NOT NULL,
        edited_by text NOT NULL,
        edited_at timestamptz NOT NULL DEFAULT now(),
        schedule text NOT NULL,
        timezone text NOT NULL,
        enabled boolean NOT NULL,
        script_path text NOT NULL,
        is_flow boolean NOT NULL,
        args jsonb NULL,
        email text NOT NULL,
        permissioned_as text NOT NULL,
        error text NULL,
        on_failure text NULL,
        on_failure_times integer NULL,
        on_failure_exact boolean NULL,
        on_failure_extra_args jsonb NULL,
        on_recovery text NULL,
        on_recovery_times integer NULL,
        on_recovery_extra_args jsonb NULL,
        on_success text NULL,
        on_success_extra_args jsonb NULL,
        ws_error_handler_muted boolean NOT NULL DEFAULT false,
        retry jsonb NULL,
        summary text NULL,
        description text NULL,
        no_flow_overlap boolean NOT NULL DEFAULT false,
        tag text NULL,
        paused_until timestamptz NULL,
        cron_version text NULL,
        owner_token text NOT NULL,
        owner_token_prefix text NOT NULL,
        next_fire_at timestamptz NULL,
        PRIMARY KEY (workspace_id, path)
      )`);
    // What the ticker polls: enabled schedules by their next tick.
    await queryRunner.query(
      `CREATE INDEX schedule_due ON schedule (next_fire_at) WHERE enabled AND next_fire_at IS NOT NULL`,
    );
    await queryRunner.query(`
      CREATE TABLE schedule_run (
        workspace_id text NOT NULL,
        schedule_path text NOT NULL,
        scheduled_for timestamptz NOT NULL,
        job_id uuid NOT NULL UNIQUE,
        script_path text NOT NULL,
        is_flow boolean NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz NULL,
        success boolean NULL,
        handled boolean NOT NULL DEFAULT false,
        PRIMARY KEY (workspace_id, schedule_path, scheduled_for)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE schedule_run`);
    await queryRunner.query(`DROP TABLE schedule`);
  }
}
