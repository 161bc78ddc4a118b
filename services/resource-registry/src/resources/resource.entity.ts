import { Column, Entity, PrimaryColumn } from 'typeorm';
import { CreatedAtColumn } from '@flowmesh/persistence';

/** A resource: a typed JSON value at a path. `$var:`/`$res:` references are stored as written. */
@Entity({ name: 'resource' })
export class ResourceEntity {
  @PrimaryColumn({ type: 'text' })
  workspaceId!: string;

  @PrimaryColumn({ type: 'text' })
  path!: string;

  @Column({ type: 'text' })
  resourceType!: string;

  @Column({ type: 'jsonb' })
  value!: unknown;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  @Column({ type: 'text' })
  createdBy!: string;

  @CreatedAtColumn()
  createdAt!: Date;

  @Column({ type: 'text' })
  editedBy!: string;

  @Column({ type: 'timestamptz' })
  editedAt!: Date;
}
