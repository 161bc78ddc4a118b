import { Column, Entity, PrimaryColumn } from 'typeorm';
import { CreatedAtColumn, UpdatedAtColumn } from '@flowmesh/persistence';

/** A folder and who may do what in `f/<name>/...`: principals `u/<user>` or `g/<group>` per role. */
@Entity({ name: 'folder' })
export class FolderEntity {
  @PrimaryColumn({ type: 'text' })
  workspaceId!: string;

  @PrimaryColumn({ type: 'text' })
  name!: string;

  @Column({ type: 'text', nullable: true })
  summary!: string | null;

  @Column({ type: 'text', array: true, default: () => `'{}'` })
  owners!: string[];

  @Column({ type: 'text', array: true, default: () => `'{}'` })
  writers!: string[];

  @Column({ type: 'text', array: true, default: () => `'{}'` })
  readers!: string[];

  @CreatedAtColumn()
  createdAt!: Date;

  @UpdatedAtColumn()
  updatedAt!: Date;
}
