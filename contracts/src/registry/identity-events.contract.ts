import { z } from 'zod';
import { defineEvent } from '../messaging/contract.js';
import { staleForMsField } from './events.contract.js';

/**
 * Facts about identities and permissions, published by the registry through its outbox in the
 * transaction that made the change. They exist so that whoever caches a decision made from a
 * token (an identity, "may this token read that resource") can drop it at once instead of at its
 * time to live. They name who and what changed, never a token or its hash.
 */

/** An API token was revoked. */
export const TokenRevokedEventSchema = z.object({
  /** The workspace the token worked in; null: every workspace of its account (the first admin's). */
  workspace: z.string().nullable(),
  /** The account the token belonged to. */
  email: z.string(),
  /** The token's public prefix (as `registry.token.list` shows it). */
  prefix: z.string(),
  by: z.string(),
  at: z.string(),
  stale_for_ms: staleForMsField,
});
export type TokenRevokedEvent = z.infer<typeof TokenRevokedEventSchema>;

export const MEMBER_CHANGES = ['added', 'removed', 'admin_changed', 'groups_changed'] as const;

/** A member of a workspace was added, removed, made (or no longer) admin, or joined or left a group. */
export const MemberChangedEventSchema = z.object({
  workspace: z.string(),
  username: z.string(),
  change: z.enum(MEMBER_CHANGES),
  /** For `groups_changed`: the group joined or left. */
  group: z.string().optional(),
  by: z.string(),
  at: z.string(),
  stale_for_ms: staleForMsField,
});
export type MemberChangedEvent = z.infer<typeof MemberChangedEventSchema>;

/** A group was created or deleted (its members' rights through it, and `g/<group>` job tokens, changed). */
export const GroupChangedEventSchema = z.object({
  workspace: z.string(),
  group: z.string(),
  change: z.enum(['created', 'deleted']),
  by: z.string(),
  at: z.string(),
  stale_for_ms: staleForMsField,
});
export type GroupChangedEvent = z.infer<typeof GroupChangedEventSchema>;

/** A folder was created, deleted, or its roles (owners, writers, readers) or summary changed. */
export const FolderChangedEventSchema = z.object({
  workspace: z.string(),
  folder: z.string(),
  change: z.enum(['created', 'updated', 'deleted']),
  by: z.string(),
  at: z.string(),
  stale_for_ms: staleForMsField,
});
export type FolderChangedEvent = z.infer<typeof FolderChangedEventSchema>;

/** `evt.identity.<fact>`: one domain, so a follower needs one filter (`evt.identity.>`). */
export const IDENTITY_EVENTS = {
  tokenRevoked: defineEvent('evt.identity.token_revoked', TokenRevokedEventSchema),
  memberChanged: defineEvent('evt.identity.member_changed', MemberChangedEventSchema),
  groupChanged: defineEvent('evt.identity.group_changed', GroupChangedEventSchema),
  folderChanged: defineEvent('evt.identity.folder_changed', FolderChangedEventSchema),
} as const;

export type IdentityEventName = keyof typeof IDENTITY_EVENTS;
/** Any identity event, as its name and payload. */
export type IdentityEvent =
  | { readonly name: 'tokenRevoked'; readonly event: TokenRevokedEvent }
  | { readonly name: 'memberChanged'; readonly event: MemberChangedEvent }
  | { readonly name: 'groupChanged'; readonly event: GroupChangedEvent }
  | { readonly name: 'folderChanged'; readonly event: FolderChangedEvent };

/** Every identity event follows this subject. */
export const IDENTITY_EVENTS_SUBJECT = 'evt.identity.>';

/**
 * The identity event a message on `subject` (relative, no prefix) carries, or undefined for
 * another subject or a payload that does not parse: for followers of `evt.identity.>`.
 */
export function parseIdentityEvent(subject: string, payload: unknown): IdentityEvent | undefined {
  for (const name of Object.keys(IDENTITY_EVENTS) as IdentityEventName[]) {
    const contract = IDENTITY_EVENTS[name];
    if (contract.subject !== subject) continue;
    const parsed = contract.payload.safeParse(payload);
    return parsed.success ? ({ name, event: parsed.data } as IdentityEvent) : undefined;
  }
  return undefined;
}
