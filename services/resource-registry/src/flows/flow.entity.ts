import { Column, Entity, PrimaryColumn } from 'typeorm';
import { CreatedAtColumn } from '@flowmesh/persistence';

/** A flow's current definition; `versionId` is the `flow_version` row it was saved as. */
@Entity({ name: 'flow' })
export class FlowEntity {
  @PrimaryColumn({ type: 'text' })
  workspaceId!: string;

  @PrimaryColumn({ type: 'text' })
  path!: string;

  @Column({ type: 'text', default: '' })
  summary!: string;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  @Column({ type: 'jsonb' })
  value!: Record<string, unknown>;

  @Column({ type: 'jsonb', nullable: true })
  schema!: Record<string, unknown> | null;

  @Column({ type: 'bigint' })
  versionId!: string;

  @Column({ type: 'text' })
  createdBy!: string;

  @CreatedAtColumn()
  createdAt!: Date;

  @Column({ type: 'text' })
  editedBy!: string;

  @Column({ type: 'timestamptz' })
  editedAt!: Date;
}
