import { IDENTITY_EVENTS, ITEM_EVENTS, type ItemChangedEvent } from '@flowmesh/contracts';
import { AuthenticationCache } from '@flowmesh/http';
import { FollowEvent } from '@flowmesh/messaging';
import { Injectable } from '@nestjs/common';
import type { Authenticated } from '../auth/authenticated.js';
import { FolderRepository } from '../folders/folder.repository.js';
import { ItemReadCache } from '../items/item-read.cache.js';

/** Replayed from before the start (nothing cached yet can miss its drop); a gap drops the cache. */
const ITEMS = { replay: 'since-start', onReset: 'forgetItems', when: 'cachesItems' } as const;
const IDENTITIES = { replay: 'since-start', onReset: 'forgetIdentities', unparsed: true } as const;

/**
 * Every replica's read cache follows the item events of the EVENTS stream, its own included, so a
 * write made through another replica drops the row here within milliseconds rather than at the
 * cache's time to live. Likewise the identity caches (authentications, folder roles) follow the
 * identity events: a token revoked, a member, group or folder changed on another replica clears
 * them here (any identity event clears both: they change rarely). Each replica reads every event
 * (`@FollowEvent` with `replay`: ordered consumers of its own, from shortly before the start, not
 * the service's shared durable, which would hand each event to one replica only).
 *
 * Whenever the following breaks (a consumer recreated, the stream gone), the cache it feeds is
 * dropped whole, since events may have passed unseen; the time to live bounds what happens meanwhile.
 */
@Injectable()
export class ItemEventsCacheListener {
  constructor(
    private readonly cache: ItemReadCache,
    private readonly authentications: AuthenticationCache<Authenticated>,
    private readonly folders: FolderRepository,
  ) {}

  /** Item events are followed only when rows are cached. */
  get cachesItems(): boolean {
    return this.cache.enabled;
  }

  @FollowEvent(ITEM_EVENTS.resource.created, ITEMS)
  @FollowEvent(ITEM_EVENTS.resource.updated, ITEMS)
  @FollowEvent(ITEM_EVENTS.resource.deleted, ITEMS)
  @FollowEvent(ITEM_EVENTS.variable.created, ITEMS)
  @FollowEvent(ITEM_EVENTS.variable.updated, ITEMS)
  @FollowEvent(ITEM_EVENTS.variable.deleted, ITEMS)
  onItemChanged(event: ItemChangedEvent): void {
    this.cache.invalidateChanged(event);
  }

  forgetItems(): void {
    this.cache.invalidateAll();
  }

  @FollowEvent(IDENTITY_EVENTS.tokenRevoked, IDENTITIES)
  @FollowEvent(IDENTITY_EVENTS.memberChanged, IDENTITIES)
  @FollowEvent(IDENTITY_EVENTS.groupChanged, IDENTITIES)
  @FollowEvent(IDENTITY_EVENTS.folderChanged, IDENTITIES)
  onIdentityEvent(): void {
    this.forgetIdentities();
  }

  forgetIdentities(): void {
    this.authentications.clear();
    this.folders.forgetRoles();
  }
}
