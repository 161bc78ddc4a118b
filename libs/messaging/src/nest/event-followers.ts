import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { followReplayedEvents, type ReplayedEvent } from '../client/follow-replayed-events.js';
import { followEvent } from '../client/listen-to-event.js';
import type { MeshConnection } from '../connection/mesh-connection.js';
import { followBindingsOf } from './follow-event.decorator.js';
import { MESH_CONNECTION } from './messaging.tokens.js';

/**
 * Subscribes every `@FollowEvent` method of the application's providers and controllers; the
 * `replay` follows of one instance share one replayed follow (its consumers) and its resets.
 */
@Injectable()
export class EventFollowers implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly log = new Logger('EventFollowers');
  private subscriptions: Array<{ unsubscribe(): void }> = [];
  private replayed: Array<{ close(): Promise<void> }> = [];

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
      const members = instance as Record<string | symbol, unknown>;
      const replayed: ReplayedEvent[] = [];
      const resets = new Map<string, (() => void) | undefined>();
      const resetBy = (name: string) => {
        if (!resets.has(name)) {
          const deliver = this.deliverer(instance, name, 'a reset');
          resets.set(name, deliver && (() => deliver(undefined)));
        }
        return resets.get(name);
      };
      for (const { method, contract, unparsed, replay, onReset, when } of followBindingsOf(
        instance.constructor,
      )) {
        if (when !== undefined && members[when] !== true) continue;
        const deliver = this.deliverer(instance, method, contract.subject);
        if (!deliver) continue;
        if (!replay) {
          this.subscriptions.push(followEvent(this.conn, contract, deliver, { unparsed }));
          continue;
        }
        replayed.push({
          contract,
          onEvent: deliver,
          unparsed,
          onReset: onReset === undefined ? undefined : resetBy(onReset),
        });
      }
      if (replayed.length === 0) continue;
      const follow = followReplayedEvents(this.conn, replayed, {
        onTrouble: (message) => this.log.warn(`${instance.constructor.name}: ${message}`),
      });
      this.replayed.push(follow);
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    for (const subscription of this.subscriptions) subscription.unsubscribe();
    this.subscriptions = [];
    const replayed = this.replayed;
    this.replayed = [];
    await Promise.all(replayed.map((follow) => follow.close()));
  }

  /** Calls `method` of `instance`, a failure (thrown or rejected) logged; undefined if no such method. */
  private deliverer(
    instance: object,
    method: string | symbol,
    what: string,
  ): ((event: unknown) => void) | undefined {
    const handler = (instance as Record<string | symbol, unknown>)[method];
    if (typeof handler !== 'function') return undefined;
    const name = `${instance.constructor.name}.${String(method)}`;
    const failed = (error: unknown) =>
      this.log.warn(`${name} failed on ${what}: ${error instanceof Error ? error.message : String(error)}`);
    return (event: unknown) => {
      try {
        Promise.resolve((handler as (event: unknown) => unknown).call(instance, event)).catch(failed);
      } catch (error) {
        failed(error);
      }
    };
  }
}
