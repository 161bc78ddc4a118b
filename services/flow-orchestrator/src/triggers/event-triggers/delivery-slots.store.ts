import { Injectable } from '@nestjs/common';
import { ConnectionLanes } from '../../store/connection-lanes.js';
import type { EventTriggerRow } from './event-trigger.store.js';

/**
 * Identities for messages whose broker reuses their ids (MQTT: a packet id is free again once
 * acknowledged). A slot (a session's packet id) counts the messages it carried. A first delivery
 * (`redelivered` false) is a new message: the count moves on. A redelivery (MQTT's DUP) is the
 * message the slot last carried when its digest is the same (the count stays: its run is the one
 * already started), else a new one that never reached the slot before the listener died (the
 * count moves on). The identity is the slot and its count.
 */
@Injectable()
export class DeliverySlots {
  constructor(private readonly lanes: ConnectionLanes) {}

  async identityOf(
    trigger: Pick<EventTriggerRow, 'workspace_id' | 'kind' | 'path'>,
    slot: string,
    digest: string,
    redelivered: boolean,
  ): Promise<string> {
    const [row] = await this.lanes.query<{ generation: string }>(
      `INSERT INTO event_trigger_delivery_slot (workspace_id, kind, path, slot, generation, digest)
       VALUES ($1, $2, $3, $4, 1, $5)
       ON CONFLICT (workspace_id, kind, path, slot) DO UPDATE SET
         generation = CASE WHEN $6 AND event_trigger_delivery_slot.digest = excluded.digest
           THEN event_trigger_delivery_slot.generation ELSE event_trigger_delivery_slot.generation + 1 END,
         digest = excluded.digest
       RETURNING generation`,
      [trigger.workspace_id, trigger.kind, trigger.path, slot, digest, redelivered],
    );
    return `${slot}:${row.generation}`;
  }
}
