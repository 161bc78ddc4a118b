import { Column, Entity, PrimaryColumn } from 'typeorm';
import { CreatedAtColumn } from '@flowmesh/persistence';

/**
 * A variable. A plain one keeps `value`; a secret keeps only `ciphertext` (iv | tag | AES-GCM
 * output) and the id of the key that sealed it, never its plaintext (a check constraint).
 */
@Entity({ name: 'variable' })
export class VariableEntity {
  @PrimaryColumn({ type: 'text' })
  workspaceId!: string;

  @PrimaryColumn({ type: 'text' })
  path!: string;

  @Column({ type: 'boolean' })
  isSecret!: boolean;

  @Column({ type: 'text', nullable: true })
  value!: string | null;

  @Column({ type: 'text', nullable: true })
  keyId!: string | null;

  @Column({ type: 'bytea', nullable: true })
  ciphertext!: Buffer | null;

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
