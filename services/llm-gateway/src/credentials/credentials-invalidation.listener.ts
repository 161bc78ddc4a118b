import { SettlingDrops } from '@flowmesh/cache-invalidation';
import {
  IDENTITY_EVENTS,
  ITEM_EVENTS,
  type FolderChangedEvent,
  type GroupChangedEvent,
  type ItemChangedEvent,
  type MemberChangedEvent,
  type TokenRevokedEvent,
  secondDropAfterMs,
} from '@flowmesh/contracts';
import { FollowEvent, HandleEvent } from '@flowmesh/messaging';
import { Controller, type OnModuleDestroy } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { RegistryCredentialsResolver } from './registry-credentials.resolver.js';

/** The gateway's durables on the registry's events (one per filter subject). */
const durable = (event: string) => ({
  durable: `llm-gateway-credentials-${event}`,
  deliverPolicy: 'new' as const,
});

/**
 * A cache entry is dropped once when the event arrives and once more later (`secondDropAfterMs`):
 * another registry replica may still answer from its own identity and row caches for a moment
 * (the event's `stale_for_ms`: `FLOWMESH_AUTH_CACHE_MS`, `FLOWMESH_REGISTRY_READ_CACHE_MS`), and a
 * resolution made in that moment must not be kept for the gateway's whole time to live.
 */
export const INVALIDATION_SETTLE_MS = secondDropAfterMs(undefined);

type Handled =
  | { readonly kind: 'item'; readonly event: ItemChangedEvent }
  | { readonly kind: 'token'; readonly event: TokenRevokedEvent }
  | { readonly kind: 'member'; readonly event: MemberChangedEvent }
  | { readonly kind: 'group'; readonly event: GroupChangedEvent }
  | { readonly kind: 'folder'; readonly event: FolderChangedEvent };

/**
 * Drops cached credentials when the registry announces a change. Each entry is also the decision
 * that its caller may read that resource, so permission changes drop entries too:
 *
 * - a resource change: that resource (both paths on a rename);
 * - a variable change: the whole workspace (any provider resource may reference it by `$var:`);
 * - a token revoked: the entries of that account in the token's workspace (every workspace for a
 *   token valid in all), its other tokens included (the event names no token);
 * - a member added, removed, made admin or moved between groups: that member's entries (its API
 *   tokens and job tokens acting as it);
 * - a group or a folder changed: the whole workspace (a folder's roles decide reads of resources
 *   and of the variables and resources they reference, which may sit in other folders).
 *
 * Two paths, because a durable consumer hands each event to one replica only: the durable
 * guarantees the event is handled (redelivered until acked), and `@FollowEvent` on the same
 * methods reaches every replica. Dropping twice is harmless.
 */
@Controller()
export class CredentialsInvalidationListener implements OnModuleDestroy {
  private readonly drops = new SettlingDrops();

  constructor(private readonly resolver: RegistryCredentialsResolver) {}

  @FollowEvent(ITEM_EVENTS.resource.updated)
  @HandleEvent(ITEM_EVENTS.resource.updated, durable('resource-updated'))
  onResourceUpdated(@Payload() event: ItemChangedEvent): void {
    this.drop({ kind: 'item', event });
  }

  @FollowEvent(ITEM_EVENTS.resource.deleted)
  @HandleEvent(ITEM_EVENTS.resource.deleted, durable('resource-deleted'))
  onResourceDeleted(@Payload() event: ItemChangedEvent): void {
    this.drop({ kind: 'item', event });
  }

  @FollowEvent(ITEM_EVENTS.variable.updated)
  @HandleEvent(ITEM_EVENTS.variable.updated, durable('variable-updated'))
  onVariableUpdated(@Payload() event: ItemChangedEvent): void {
    this.drop({ kind: 'item', event });
  }

  @FollowEvent(ITEM_EVENTS.variable.deleted)
  @HandleEvent(ITEM_EVENTS.variable.deleted, durable('variable-deleted'))
  onVariableDeleted(@Payload() event: ItemChangedEvent): void {
    this.drop({ kind: 'item', event });
  }

  @FollowEvent(IDENTITY_EVENTS.tokenRevoked)
  @HandleEvent(IDENTITY_EVENTS.tokenRevoked, durable('token-revoked'))
  onTokenRevoked(@Payload() event: TokenRevokedEvent): void {
    this.drop({ kind: 'token', event });
  }

  @FollowEvent(IDENTITY_EVENTS.memberChanged)
  @HandleEvent(IDENTITY_EVENTS.memberChanged, durable('member-changed'))
  onMemberChanged(@Payload() event: MemberChangedEvent): void {
    this.drop({ kind: 'member', event });
  }

  @FollowEvent(IDENTITY_EVENTS.groupChanged)
  @HandleEvent(IDENTITY_EVENTS.groupChanged, durable('group-changed'))
  onGroupChanged(@Payload() event: GroupChangedEvent): void {
    this.drop({ kind: 'group', event });
  }

  @FollowEvent(IDENTITY_EVENTS.folderChanged)
  @HandleEvent(IDENTITY_EVENTS.folderChanged, durable('folder-changed'))
  onFolderChanged(@Payload() event: FolderChangedEvent): void {
    this.drop({ kind: 'folder', event });
  }

  /** Second drops still to come (a test waits for none before it relies on a cached entry). */
  get pendingDrops(): number {
    return this.drops.pending;
  }

  onModuleDestroy(): void {
    this.drops.clear();
  }

  private drop(handled: Handled): void {
    this.drops.drop(() => this.apply(handled), handled.event.stale_for_ms);
  }

  private apply(handled: Handled): void {
    const cache = this.resolver.cache;
    switch (handled.kind) {
      case 'item': {
        const { event } = handled;
        if (event.kind === 'variable') {
          cache.invalidateWorkspace(event.workspace);
          return;
        }
        cache.invalidateResource(event.workspace, event.path);
        if (event.previous_path) cache.invalidateResource(event.workspace, event.previous_path);
        return;
      }
      case 'token': {
        const { email } = handled.event;
        cache.invalidateMatching(handled.event.workspace, ({ identity }) => identity.email === email);
        return;
      }
      case 'member': {
        const { username } = handled.event;
        cache.invalidateMatching(handled.event.workspace, ({ identity }) => identity.username === username);
        return;
      }
      case 'group':
      case 'folder':
        cache.invalidateWorkspace(handled.event.workspace);
        return;
    }
  }
}
