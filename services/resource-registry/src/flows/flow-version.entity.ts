import { Column, Entity } from 'typeorm';
import { ItemVersionColumns } from '../items/item-columns.js';

/** Every saved definition of a flow, oldest first by id. */
@Entity({ name: 'flow_version' })
export class FlowVersionEntity extends ItemVersionColumns {
  @Column({ type: 'text', default: '' })
  summary!: string;

  @Column({ type: 'jsonb' })
  value!: Record<string, unknown>;

  @Column({ type: 'jsonb', nullable: true })
  schema!: Record<string, unknown> | null;
}
