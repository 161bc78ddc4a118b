import { MeshError, type CallerIdentity, type DraftItemKind, type ScopeDomain } from '@flowmesh/contracts';

/** The scope domain of the item a draft is of. */
export function itemDomain(kind: DraftItemKind): ScopeDomain {
  return kind === 'resource' ? 'resources' : kind === 'script' ? 'scripts' : 'flows';
}

/** Drafts belong to users; a job acting as a group (`g/<group>`) has none. */
export function assertDraftOwner(identity: CallerIdentity): void {
  if (identity.username.startsWith('g/')) {
    throw new MeshError('PERMISSION_DENIED', `drafts belong to users; ${identity.username} is a group`);
  }
}

export function draftNotFound(kind: DraftItemKind, path: string, username: string): MeshError {
  return new MeshError('NOT_FOUND', `no draft of ${kind} ${path} for user ${username}`, {
    item_kind: kind,
    path,
  });
}
