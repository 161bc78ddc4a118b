import { Column, Entity, PrimaryColumn } from 'typeorm';
import { CreatedAtColumn } from '@flowmesh/persistence';

/** A person, by email, across workspaces; API tokens belong to an account. */
@Entity({ name: 'account' })
export class AccountEntity {
  @PrimaryColumn({ type: 'text' })
  email!: string;

  /** May create workspaces; the first admin is one. */
  @Column({ type: 'boolean', default: false })
  isSuperAdmin!: boolean;

  @CreatedAtColumn()
  createdAt!: Date;
}
