import { Column, Entity } from 'typeorm';
import { ItemColumns } from '../items/item-columns.js';

/**
 * A variable. A plain one keeps `value`; a secret keeps only `ciphertext` (iv | tag | AES-GCM
 * output) and the id of the key that sealed it, never its plaintext (a check constraint).
 */
@Entity({ name: 'variable' })
export class VariableEntity extends ItemColumns {
  @Column({ type: 'boolean' })
  isSecret!: boolean;

  @Column({ type: 'text', nullable: true })
  value!: string | null;

  @Column({ type: 'text', nullable: true })
  keyId!: string | null;

  @Column({ type: 'bytea', nullable: true })
  ciphertext!: Buffer | null;
}
