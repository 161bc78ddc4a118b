import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A tick's run is recorded (`schedule_run`) when its schedule is claimed and started after that
 * short transaction: `started` says the run use case accepted it, `attempt_at` when a start was
 * last tried. A row left unstarted (its replica died between the two, or the registry did not
 * answer) is started again by any replica once `attempt_at` is old; the tick's job id makes that
 * start a no-op if the first one went through.
 */
export class ScheduleRunStarts1700000053000 implements MigrationInterface {
  name = 'ScheduleRunStarts1700000053000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE schedule_run ADD COLUMN started boolean NOT NULL DEFAULT false,
         ADD COLUMN attempt_at timestamptz NOT NULL DEFAULT now()`,
    );
    await queryRunner.query(`UPDATE schedule_run SET started = true`);
    await queryRunner.query(
      `CREATE INDEX schedule_run_unstarted ON schedule_run (attempt_at) WHERE NOT started`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX schedule_run_unstarted`);
    await queryRunner.query(`ALTER TABLE schedule_run DROP COLUMN attempt_at, DROP COLUMN started`);
  }
}
