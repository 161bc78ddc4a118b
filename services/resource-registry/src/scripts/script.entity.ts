import { Column, Entity } from 'typeorm';
import { ItemColumns } from '../items/item-columns.js';

/** A script path: its labels and which version is current. */
@Entity({ name: 'script' })
export class ScriptEntity extends ItemColumns {
  @Column({ type: 'text' })
  currentHash!: string;

  @Column({ type: 'text', default: '' })
  summary!: string;
}
