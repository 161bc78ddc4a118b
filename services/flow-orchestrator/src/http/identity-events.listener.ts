import { SettlingDrops } from '@flowmesh/cache-invalidation';
import { IDENTITY_EVENTS } from '@flowmesh/contracts';
import { InjectMeshConnection, type MeshConnection } from '@flowmesh/messaging';
import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { z } from 'zod';
import type { AuthenticationCache } from './authentication.cache.js';
import { AUTHENTICATION_CACHE } from './registry-authenticator.js';

/**
 * Clears the run API's authentication cache when the registry announces a token revoked or a
 * member, group or folder changed (`evt.identity.*`), so a revoked token is refused at once
 * rather than at the cache's time to live, and once more after the registry replicas' own caches
 * let go (`secondDropAfterMs`): an answer read from one of them meanwhile is not kept. A plain
 * subscription on every replica: the cache is per process and its time to live bounds what a
 * missed event costs.
 */
@Injectable()
export class IdentityEventsListener implements OnModuleInit, OnModuleDestroy {
  private subscriptions: Array<{ unsubscribe(): void }> = [];
  private readonly drops = new SettlingDrops();

  constructor(
    @Inject(AUTHENTICATION_CACHE) private readonly cache: AuthenticationCache,
    @InjectMeshConnection() private readonly conn: MeshConnection,
  ) {}

  onModuleInit(): void {
    this.subscriptions = Object.values(IDENTITY_EVENTS).map((contract) =>
      this.conn.nc.subscribe(this.conn.space.subject(contract.subject), {
        callback: (error, message) => {
          if (error) return;
          this.drops.drop(() => this.cache.clear(), staleForMsOf(contract.payload, message));
        },
      }),
    );
  }

  onModuleDestroy(): void {
    for (const subscription of this.subscriptions) subscription.unsubscribe();
    this.subscriptions = [];
    this.drops.clear();
  }
}

/** The event's `stale_for_ms`, when its payload is one (the clear happens anyway). */
function staleForMsOf(
  payload: z.ZodType<{ stale_for_ms?: number }>,
  message: { json<T>(): T },
): number | undefined {
  try {
    const parsed = payload.safeParse(message.json<unknown>());
    return parsed.success ? parsed.data.stale_for_ms : undefined;
  } catch {
    return undefined;
  }
}
