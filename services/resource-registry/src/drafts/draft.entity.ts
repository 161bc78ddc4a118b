import type { DraftItemKind } from '@flowmesh/contracts';
import { Column, Entity, Index, Unique } from 'typeorm';
import { CreatedAtColumn, UpdatedAtColumn, UuidPrimaryColumn } from '@flowmesh/persistence';

/** A user's unsaved edit of one item: at most one per (workspace, kind, path, user). */
@Entity({ name: 'draft' })
@Unique('UQ_draft_item_user', ['workspaceId', 'itemKind', 'path', 'username'])
@Index('IDX_draft_user', ['workspaceId', 'username'])
export class DraftEntity {
  @UuidPrimaryColumn()
  id!: string;

  @Column({ type: 'text' })
  workspaceId!: string;

  @Column({ type: 'text' })
  itemKind!: DraftItemKind;

  @Column({ type: 'text' })
  path!: string;

  @Column({ type: 'text' })
  username!: string;

  @Column({ type: 'jsonb' })
  value!: Record<string, unknown>;

  @CreatedAtColumn()
  createdAt!: Date;

  @UpdatedAtColumn()
  updatedAt!: Date;
}
