import { Column, Entity, PrimaryColumn } from 'typeorm';
import { CreatedAtColumn } from '@flowmesh/persistence';

@Entity({ name: 'workspace_group' })
export class WorkspaceGroupEntity {
  @PrimaryColumn({ type: 'text' })
  workspaceId!: string;

  @PrimaryColumn({ type: 'text' })
  name!: string;

  @Column({ type: 'text', nullable: true })
  summary!: string | null;

  @CreatedAtColumn()
  createdAt!: Date;
}
