import { SettlingDrops } from '@flowmesh/cache-invalidation';
import { IDENTITY_EVENTS, type CallerIdentity } from '@flowmesh/contracts';
import type { AuthenticationCache } from '@flowmesh/http';
import { FollowEvent } from '@flowmesh/messaging';
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { AUTHENTICATION_CACHE } from './registry-authenticator.js';

/**
 * Clears the run API's authentication cache when the registry announces a token revoked or a
 * member, group or folder changed (`evt.identity.*`), so a revoked token is refused at once
 * rather than at the cache's time to live, and once more after the registry replicas' own caches
 * let go (`secondDropAfterMs`): an answer read from one of them meanwhile is not kept. Every
 * replica follows the events: the cache is per process and its time to live bounds what a missed
 * event costs. An event it cannot read clears the cache too.
 */
@Injectable()
export class IdentityEventsListener implements OnModuleDestroy {
  private readonly drops = new SettlingDrops();

  constructor(@Inject(AUTHENTICATION_CACHE) private readonly cache: AuthenticationCache<CallerIdentity>) {}

  @FollowEvent(IDENTITY_EVENTS.tokenRevoked, { unparsed: true })
  @FollowEvent(IDENTITY_EVENTS.memberChanged, { unparsed: true })
  @FollowEvent(IDENTITY_EVENTS.groupChanged, { unparsed: true })
  @FollowEvent(IDENTITY_EVENTS.folderChanged, { unparsed: true })
  onIdentityEvent(event: { readonly stale_for_ms?: number } | undefined): void {
    this.drops.drop(() => this.cache.clear(), event?.stale_for_ms);
  }

  onModuleDestroy(): void {
    this.drops.clear();
  }
}
