import { ITEM_EVENTS, type ItemChangedEvent } from '@flowmesh/contracts';
import { HandleEvent, InjectMeshConnection, type MeshConnection } from '@flowmesh/messaging';
import { Controller, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { RegistryCredentialsResolver } from './registry-credentials.resolver.js';

/** The gateway's durables on the registry's item events (one per filter subject). */
const durable = (event: string) => ({
  durable: `llm-gateway-credentials-${event}`,
  deliverPolicy: 'new' as const,
});

/** The events after which cached credentials may be wrong. */
const INVALIDATING_EVENTS = [
  ITEM_EVENTS.resource.updated,
  ITEM_EVENTS.resource.deleted,
  ITEM_EVENTS.variable.updated,
  ITEM_EVENTS.variable.deleted,
];

/**
 * Drops cached credentials when the registry announces a change. A resource change drops that
 * resource (both paths on a rename); a variable change drops the whole workspace, since any
 * provider resource there may reference the variable through `$var:`.
 *
 * Two paths, because a durable consumer hands each event to one replica only: the durable
 * guarantees the event is handled (redelivered until acked), and a plain subscription to the same
 * subjects on every replica reaches the others. Dropping twice is harmless.
 */
@Controller()
export class CredentialsInvalidationListener implements OnModuleInit, OnModuleDestroy {
  private subscriptions: Array<{ unsubscribe(): void }> = [];

  constructor(
    private readonly resolver: RegistryCredentialsResolver,
    @InjectMeshConnection() private readonly conn: MeshConnection,
  ) {}

  @HandleEvent(ITEM_EVENTS.resource.updated, durable('resource-updated'))
  onResourceUpdated(@Payload() event: ItemChangedEvent): void {
    this.drop(event);
  }

  @HandleEvent(ITEM_EVENTS.resource.deleted, durable('resource-deleted'))
  onResourceDeleted(@Payload() event: ItemChangedEvent): void {
    this.drop(event);
  }

  @HandleEvent(ITEM_EVENTS.variable.updated, durable('variable-updated'))
  onVariableUpdated(@Payload() event: ItemChangedEvent): void {
    this.drop(event);
  }

  @HandleEvent(ITEM_EVENTS.variable.deleted, durable('variable-deleted'))
  onVariableDeleted(@Payload() event: ItemChangedEvent): void {
    this.drop(event);
  }

  onModuleInit(): void {
    this.subscriptions = INVALIDATING_EVENTS.map((contract) =>
      this.conn.nc.subscribe(this.conn.space.subject(contract.subject), {
        callback: (error, message) => {
          if (error) return;
          const parsed = contract.payload.safeParse(safeJson(message.data));
          if (parsed.success) this.drop(parsed.data);
        },
      }),
    );
  }

  onModuleDestroy(): void {
    for (const subscription of this.subscriptions) subscription.unsubscribe();
    this.subscriptions = [];
  }

  private drop(event: ItemChangedEvent): void {
    const cache = this.resolver.cache;
    if (event.kind === 'variable') {
      cache.invalidateWorkspace(event.workspace);
      return;
    }
    cache.invalidateResource(event.workspace, event.path);
    if (event.previous_path) cache.invalidateResource(event.workspace, event.previous_path);
  }
}

function safeJson(data: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(data));
  } catch {
    return undefined;
  }
}
