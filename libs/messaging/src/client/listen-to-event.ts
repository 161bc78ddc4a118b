import type { EventContract } from '@flowmesh/contracts';
import type { Subscription } from '@nats-io/nats-core';
import type { z } from 'zod';
import type { MeshConnection } from '../connection/mesh-connection.js';

/**
 * Hears every event of `contract` as it is published, in this process (a core subscription, no
 * queue group: each replica hears each event, nothing is stored for it). For work that only goes
 * faster for hearing it (a cancel, a cache drop): the durable fact is elsewhere. Events that do
 * not match the contract are ignored. In a service, `@FollowEvent(contract)` on a method does this.
 */
export function listenToEvent<Payload extends z.ZodType>(
  conn: MeshConnection,
  contract: EventContract<Payload>,
  onEvent: (event: z.output<Payload>) => void,
): Subscription {
  return followEvent(conn, contract, (event) => onEvent(event as z.output<Payload>), { unparsed: false });
}

/** `listenToEvent`; with `unparsed`, an event that does not match the contract is heard as undefined. */
export function followEvent(
  conn: MeshConnection,
  contract: EventContract,
  onEvent: (event: unknown) => void,
  options: { readonly unparsed: boolean },
): Subscription {
  return conn.nc.subscribe(conn.space.subject(contract.subject), {
    callback: (error, message) => {
      if (error) return;
      const parsed = contract.payload.safeParse(parseEventData(message.data));
      if (parsed.success) onEvent(parsed.data);
      else if (options.unparsed) onEvent(undefined);
    },
  });
}

/** An event's JSON, or undefined when it is not JSON. */
export function parseEventData(data: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(data));
  } catch {
    return undefined;
  }
}
