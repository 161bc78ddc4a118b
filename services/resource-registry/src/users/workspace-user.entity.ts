import { Column, Entity, PrimaryColumn } from 'typeorm';
import { CreatedAtColumn } from '@flowmesh/persistence';

/** An account's membership of one workspace, under a user name unique in that workspace. */
@Entity({ name: 'workspace_user' })
export class WorkspaceUserEntity {
  @PrimaryColumn({ type: 'text' })
  workspaceId!: string;

  @PrimaryColumn({ type: 'text' })
  username!: string;

  @Column({ type: 'text' })
  email!: string;

  @Column({ type: 'boolean', default: false })
  isAdmin!: boolean;

  @CreatedAtColumn()
  createdAt!: Date;
}
