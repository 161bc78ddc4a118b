import { Column, Entity, PrimaryColumn } from 'typeorm';
import { CreatedAtColumn } from '@flowmesh/persistence';

/** One immutable version of a script, named by the hash of what it runs. */
@Entity({ name: 'script_version' })
export class ScriptVersionEntity {
  @PrimaryColumn({ type: 'text' })
  workspaceId!: string;

  @PrimaryColumn({ type: 'text' })
  hash!: string;

  @Column({ type: 'text' })
  path!: string;

  @Column({ type: 'text', nullable: true })
  parentHash!: string | null;

  @Column({ type: 'text' })
  language!: string;

  @Column({ type: 'text' })
  content!: string;

  @Column({ type: 'text', nullable: true })
  lock!: string | null;

  @Column({ type: 'jsonb', nullable: true })
  schema!: Record<string, unknown> | null;

  @Column({ type: 'text' })
  createdBy!: string;

  @CreatedAtColumn()
  createdAt!: Date;
}
