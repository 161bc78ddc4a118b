import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { followEvent } from '../client/listen-to-event.js';
import type { MeshConnection } from '../connection/mesh-connection.js';
import { followBindingsOf } from './follow-event.decorator.js';
import { MESH_CONNECTION } from './messaging.tokens.js';

/** Subscribes every `@FollowEvent` method of the application's providers and controllers. */
@Injectable()
export class EventFollowers implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly log = new Logger('EventFollowers');
  private subscriptions: Array<{ unsubscribe(): void }> = [];

  constructor(
    private readonly discovery: DiscoveryService,
    @Inject(MESH_CONNECTION) private readonly conn: MeshConnection,
  ) {}

  onApplicationBootstrap(): void {
    const seen = new Set<object>();
    for (const wrapper of [...this.discovery.getProviders(), ...this.discovery.getControllers()]) {
      const instance: unknown = wrapper.instance;
      if (!wrapper.isDependencyTreeStatic() || typeof instance !== 'object' || instance === null) continue;
      if (seen.has(instance)) continue;
      seen.add(instance);
      for (const { method, contract, unparsed } of followBindingsOf(instance.constructor)) {
        const handler = (instance as Record<string | symbol, (event: unknown) => unknown>)[method];
        if (typeof handler !== 'function') continue;
        const name = `${instance.constructor.name}.${String(method)}`;
        const failed = (error: unknown) =>
          this.log.warn(
            `${name} failed on ${contract.subject}: ${error instanceof Error ? error.message : String(error)}`,
          );
        const deliver = (event: unknown) => {
          try {
            Promise.resolve(handler.call(instance, event)).catch(failed);
          } catch (error) {
            failed(error);
          }
        };
        this.subscriptions.push(followEvent(this.conn, contract, deliver, { unparsed }));
      }
    }
  }

  beforeApplicationShutdown(): void {
    for (const subscription of this.subscriptions) subscription.unsubscribe();
    this.subscriptions = [];
  }
}
