import type { MigrationInterface, QueryRunner } from 'typeorm';
import { outboxTablePath } from './outbox-table.util.js';

/** The outbox table of `OutboxMessageEntity`; add it to a service's migrations. */
export class CreateOutbox1700000000000 implements MigrationInterface {
  name = 'CreateOutbox1700000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const table = outboxTablePath(queryRunner.connection);
    await queryRunner.query(`
      CREATE TABLE ${table} (
        "id" uuid NOT NULL,
        "seq" bigint GENERATED ALWAYS AS IDENTITY,
        "subject" text NOT NULL,
        "payload" jsonb NOT NULL,
        "headers" jsonb NOT NULL DEFAULT '{}'::jsonb,
        "msg_id" text NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "published_at" timestamptz NULL,
        CONSTRAINT "PK_outbox_message" PRIMARY KEY ("id"),
        CONSTRAINT "UQ_outbox_message_msg_id" UNIQUE ("msg_id")
      )`);
    // The relay only ever scans unpublished rows, in write order.
    await queryRunner.query(
      `CREATE INDEX "IDX_outbox_message_unpublished" ON ${table} ("seq") WHERE "published_at" IS NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE ${outboxTablePath(queryRunner.connection)}`);
  }
}
