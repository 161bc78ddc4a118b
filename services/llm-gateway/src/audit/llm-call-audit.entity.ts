import { CreatedAtColumn } from '@flowmesh/persistence';
import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/**
 * One row per provider call made through the gateway: who, which provider resource and model,
 * tokens, outcome, latency. Bodies only when `FLOWMESH_GATEWAY_AUDIT_BODIES=true`; never a
 * credential or a header.
 */
@Entity({ name: 'llm_call_audit' })
export class LlmCallAuditEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id!: string;

  @CreatedAtColumn()
  createdAt!: Date;

  @Column({ type: 'text' })
  workspace!: string;

  /** The caller: a user name, or the principal a job acts as. */
  @Column({ type: 'text' })
  identity!: string;

  @Column({ type: 'text' })
  identityKind!: string;

  @Column({ type: 'text', nullable: true })
  jobId!: string | null;

  /** `http` (the OpenAI-compatible API), `proxy` (the workspace proxy) or `nats` (the internal API). */
  @Column({ type: 'text' })
  source!: string;

  /** `chat`, `embeddings`, `text_completion`, `models`. */
  @Column({ type: 'text' })
  operation!: string;

  /** Provider resource path. */
  @Column({ type: 'text' })
  resource!: string;

  /** Provider kind (`openai`, `anthropic`, ...). */
  @Column({ type: 'text' })
  provider!: string;

  @Column({ type: 'text' })
  model!: string;

  @Column({ type: 'text', nullable: true })
  responseModel!: string | null;

  @Column({ type: 'boolean' })
  stream!: boolean;

  @Column({ type: 'integer', nullable: true })
  inputTokens!: number | null;

  @Column({ type: 'integer', nullable: true })
  outputTokens!: number | null;

  @Column({ type: 'integer', nullable: true })
  cacheReadTokens!: number | null;

  @Column({ type: 'integer', nullable: true })
  cacheWriteTokens!: number | null;

  @Column({ type: 'integer', nullable: true })
  reasoningTokens!: number | null;

  /** `ok`, `error` or `cancelled`. */
  @Column({ type: 'text' })
  status!: string;

  /** The status the gateway answered the caller with (HTTP), when there is one. */
  @Column({ type: 'integer', nullable: true })
  httpStatus!: number | null;

  /** The provider error class (`rate_limited`, `context_window_exceeded`, ...). */
  @Column({ type: 'text', nullable: true })
  errorClass!: string | null;

  @Column({ type: 'integer' })
  latencyMs!: number;

  @Column({ type: 'integer', nullable: true })
  timeToFirstChunkMs!: number | null;

  @Column({ type: 'jsonb', nullable: true })
  requestBody!: object | null;

  @Column({ type: 'jsonb', nullable: true })
  responseBody!: object | null;
}
