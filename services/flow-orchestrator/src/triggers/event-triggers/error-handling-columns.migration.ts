import type { MigrationInterface, QueryRunner } from 'typeorm';

/** A trigger's error handler and retry (Windmill's `TriggerErrorHandling`), applied to script runs. */
export class EventTriggerErrorHandling1700000056000 implements MigrationInterface {
  name = 'EventTriggerErrorHandling1700000056000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE event_trigger ADD COLUMN error_handler_path text NULL,
         ADD COLUMN error_handler_args jsonb NULL, ADD COLUMN retry jsonb NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE event_trigger DROP COLUMN retry, DROP COLUMN error_handler_args, DROP COLUMN error_handler_path`,
    );
  }
}
