import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What an MQTT message's identity is made of where the protocol gives it none that lasts: a
 * packet id is reused once acknowledged, so each (trigger, session, packet id) slot counts the
 * messages it carried (`generation`), with the `digest` of the last one, so a redelivery (DUP) of
 * that message is told from a new one (`delivery-slots.store.ts`).
 */
export class EventTriggerDeliverySlots1700000055000 implements MigrationInterface {
  name = 'EventTriggerDeliverySlots1700000055000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE event_trigger_delivery_slot (
        workspace_id text NOT NULL,
        kind text NOT NULL,
        path text NOT NULL,
        slot text NOT NULL,
        generation bigint NOT NULL,
        digest text NOT NULL,
        PRIMARY KEY (workspace_id, kind, path, slot)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE event_trigger_delivery_slot`);
  }
}
