import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { CreatedAtColumn } from '@flowmesh/persistence';

/** Every saved definition of a flow, oldest first by id. */
@Entity({ name: 'flow_version' })
export class FlowVersionEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id!: string;

  @Column({ type: 'text' })
  workspaceId!: string;

  @Column({ type: 'text' })
  path!: string;

  @Column({ type: 'text', default: '' })
  summary!: string;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  @Column({ type: 'jsonb' })
  value!: Record<string, unknown>;

  @Column({ type: 'jsonb', nullable: true })
  schema!: Record<string, unknown> | null;

  @Column({ type: 'text' })
  createdBy!: string;

  @CreatedAtColumn()
  createdAt!: Date;
}
