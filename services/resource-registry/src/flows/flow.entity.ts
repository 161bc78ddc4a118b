import { Column, Entity } from 'typeorm';
import { ItemColumns } from '../items/item-columns.js';

/** A flow's current definition; `versionId` is the `flow_version` row it was saved as. */
@Entity({ name: 'flow' })
export class FlowEntity extends ItemColumns {
  @Column({ type: 'text', default: '' })
  summary!: string;

  @Column({ type: 'jsonb' })
  value!: Record<string, unknown>;

  @Column({ type: 'jsonb', nullable: true })
  schema!: Record<string, unknown> | null;

  @Column({ type: 'bigint' })
  versionId!: string;
}
