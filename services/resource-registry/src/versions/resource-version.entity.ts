import { Column, Entity, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { CreatedAtColumn } from '@flowmesh/persistence';

/**
 * One past or current value of a resource, as written: a `$var:`/`$res:` reference stays a
 * reference. `version` counts up per resource and is never reused, so dropped and cleared
 * versions leave gaps rather than renumbering what a reviewer already saw.
 */
@Entity({ name: 'resource_version' })
@Unique('UQ_resource_version', ['workspaceId', 'path', 'version'])
export class ResourceVersionEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id!: string;

  @Column({ type: 'text' })
  workspaceId!: string;

  @Column({ type: 'text' })
  path!: string;

  @Column({ type: 'integer' })
  version!: number;

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

  @Column({ type: 'integer', nullable: true })
  restoredFrom!: number | null;
}
