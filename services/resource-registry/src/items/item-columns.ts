import { CreatedAtColumn } from '@flowmesh/persistence';
import { Column, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/**
 * The columns every current item row has (flow, script, resource, variable): its path in a
 * workspace as the key, a description, and who created it and last edited it when. Each item's
 * entity extends it with its own columns.
 */
export abstract class ItemColumns {
  @PrimaryColumn({ type: 'text' })
  workspaceId!: string;

  @PrimaryColumn({ type: 'text' })
  path!: string;

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

/**
 * The columns every row of an item's history has (`flow_version`, `resource_version`): an id
 * that counts up, the path it was saved at, its description and who saved it when.
 */
export abstract class ItemVersionColumns {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id!: string;

  @Column({ type: 'text' })
  workspaceId!: string;

  @Column({ type: 'text' })
  path!: string;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  @Column({ type: 'text' })
  createdBy!: string;

  @CreatedAtColumn()
  createdAt!: Date;
}
