import { Column, Entity } from 'typeorm';
import { CreatedAtColumn, UuidPrimaryColumn } from '@flowmesh/persistence';

/** An API token of an account: only its SHA-256 hash is kept, never the token. */
@Entity({ name: 'api_token' })
export class ApiTokenEntity {
  @UuidPrimaryColumn()
  id!: string;

  /** Hex SHA-256 of the token. */
  @Column({ type: 'text' })
  tokenHash!: string;

  /** Shown in lists and used to revoke; a few leading characters, never enough to use. */
  @Column({ type: 'text' })
  prefix!: string;

  @Column({ type: 'text' })
  email!: string;

  /** The workspace the token works in; null: every workspace of its account. */
  @Column({ type: 'text', nullable: true })
  workspaceId!: string | null;

  @Column({ type: 'text', nullable: true })
  label!: string | null;

  /** Null: unrestricted. */
  @Column({ type: 'text', array: true, nullable: true })
  scopes!: string[] | null;

  @Column({ type: 'timestamptz', nullable: true })
  expiresAt!: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;

  @CreatedAtColumn()
  createdAt!: Date;
}
