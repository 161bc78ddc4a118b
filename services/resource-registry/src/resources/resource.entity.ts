import { Column, Entity } from 'typeorm';
import { ItemColumns } from '../items/item-columns.js';

/** A resource: a typed JSON value at a path. `$var:`/`$res:` references are stored as written. */
@Entity({ name: 'resource' })
export class ResourceEntity extends ItemColumns {
  @Column({ type: 'text' })
  resourceType!: string;

  @Column({ type: 'jsonb' })
  value!: unknown;
}
