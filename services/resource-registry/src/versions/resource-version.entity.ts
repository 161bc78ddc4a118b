import { Column, Entity, Unique } from 'typeorm';
import { ItemVersionColumns } from '../items/item-columns.js';

/**
 * One past or current value of a resource, as written: a `$var:`/`$res:` reference stays a
 * reference. `version` counts up per resource and is never reused, so dropped and cleared
 * versions leave gaps rather than renumbering what a reviewer already saw.
 */
@Entity({ name: 'resource_version' })
@Unique('UQ_resource_version', ['workspaceId', 'path', 'version'])
export class ResourceVersionEntity extends ItemVersionColumns {
  @Column({ type: 'integer' })
  version!: number;

  @Column({ type: 'text' })
  resourceType!: string;

  @Column({ type: 'jsonb' })
  value!: unknown;

  @Column({ type: 'integer', nullable: true })
  restoredFrom!: number | null;
}
