import { Column, Entity, Index, PrimaryColumn, Unique } from 'typeorm';

/**
 * A message waiting to be published, written in the same transaction as the state change that
 * caused it. Created by `CreateOutbox1700000000000`; a service lists both in its data source.
 */
@Entity({ name: 'outbox_message' })
@Unique('UQ_outbox_message_msg_id', ['msgId'])
@Index('IDX_outbox_message_unpublished', ['seq'], { where: '"published_at" IS NULL' })
export class OutboxMessageEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  /**
   * Write order. Rows of one transaction share `created_at` (Postgres' now() is the transaction
   * start), so this is what keeps "job started" ahead of "job completed".
   */
  @Column({
    type: 'bigint',
    generated: 'identity',
    generatedIdentity: 'ALWAYS',
    insert: false,
    update: false,
  })
  seq!: string;

  /** Relative subject (the relay adds its deployment prefix). */
  @Column({ type: 'text' })
  subject!: string;

  @Column({ type: 'jsonb' })
  payload!: unknown;

  /** Headers to publish with, including the trace context of the writing transaction. */
  @Column({ type: 'jsonb', default: {} })
  headers!: Record<string, string>;

  /** `Nats-Msg-Id`: JetStream drops a republish of the same id, so a relay crash cannot duplicate. */
  @Column({ name: 'msg_id', type: 'text' })
  msgId!: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;

  @Column({ name: 'published_at', type: 'timestamptz', nullable: true })
  publishedAt!: Date | null;
}
