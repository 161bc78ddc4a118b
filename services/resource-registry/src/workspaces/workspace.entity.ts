import { Column, Entity, PrimaryColumn } from 'typeorm';
import { CreatedAtColumn } from '@flowmesh/persistence';

@Entity({ name: 'workspace' })
export class WorkspaceEntity {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text' })
  name!: string;

  @CreatedAtColumn()
  createdAt!: Date;
}
