import { Column, Entity, PrimaryColumn } from 'typeorm';
import { CreatedAtColumn } from '@flowmesh/persistence';

/** A script path: its labels and which version is current. */
@Entity({ name: 'script' })
export class ScriptEntity {
  @PrimaryColumn({ type: 'text' })
  workspaceId!: string;

  @PrimaryColumn({ type: 'text' })
  path!: string;

  @Column({ type: 'text' })
  currentHash!: string;

  @Column({ type: 'text', default: '' })
  summary!: string;

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
