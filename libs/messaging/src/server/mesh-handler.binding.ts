import type { EventContract, RequestContract, WorkContract } from '@flowmesh/contracts';

/**
 * What a mesh handler decorator records next to Nest's pattern: the contract and how to consume
 * it. The transport reads it from the handler's `extras` when it starts listening.
 */
export interface RequestBinding {
  readonly kind: 'request';
  readonly contract: RequestContract;
}

export interface JetStreamConsumerPolicy {
  /** Base durable name (prefixed on the wire); one per subscribing service and purpose. */
  readonly durable: string;
  /** How long a delivery may go unsettled; `working()` heartbeats extend it while the handler runs. */
  readonly ackWaitMs: number;
  /** Deliveries before the message is dead-lettered. */
  readonly maxDeliver: number;
  /** Delay before redelivery after the n-th failure; the last value repeats. */
  readonly backoffMs: readonly number[];
  readonly maxAckPending: number;
  /** Handlers running at once in this instance. */
  readonly concurrency: number;
}

export interface EventBinding extends JetStreamConsumerPolicy {
  readonly kind: 'event';
  readonly contract: EventContract;
  /** Where a new durable starts: every stored event (default) or only those published from now on. */
  readonly deliverPolicy: 'all' | 'new';
}

export interface WorkBinding extends JetStreamConsumerPolicy {
  readonly kind: 'work';
  readonly contract: WorkContract;
  /** Worker tags served; one durable consumer per tag (NATS 2.9 has one filter per consumer). */
  readonly tags: readonly string[];
}

export type MeshBinding = RequestBinding | EventBinding | WorkBinding;

/** Key under which a binding sits in Nest's pattern `extras`. */
export const MESH_BINDING = 'flowmeshBinding';

export function bindingOf(extras: Record<string, unknown> | undefined): MeshBinding | undefined {
  return extras?.[MESH_BINDING] as MeshBinding | undefined;
}
