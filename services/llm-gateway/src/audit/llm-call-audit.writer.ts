import type { Logger } from '@flowmesh/telemetry';
import { Inject, Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AUDIT_LOGGER } from './audit.config.js';
import type { LlmCallAuditEntity } from './llm-call-audit.entity.js';

export type LlmCallAuditRow = Omit<LlmCallAuditEntity, 'id' | 'createdAt'>;

/** Column order of the INSERT; values come from the row in this order. */
const COLUMNS: ReadonlyArray<readonly [string, keyof LlmCallAuditRow]> = [
  ['workspace', 'workspace'],
  ['identity', 'identity'],
  ['identity_kind', 'identityKind'],
  ['job_id', 'jobId'],
  ['source', 'source'],
  ['operation', 'operation'],
  ['resource', 'resource'],
  ['provider', 'provider'],
  ['model', 'model'],
  ['response_model', 'responseModel'],
  ['stream', 'stream'],
  ['input_tokens', 'inputTokens'],
  ['output_tokens', 'outputTokens'],
  ['cache_read_tokens', 'cacheReadTokens'],
  ['cache_write_tokens', 'cacheWriteTokens'],
  ['reasoning_tokens', 'reasoningTokens'],
  ['status', 'status'],
  ['http_status', 'httpStatus'],
  ['error_class', 'errorClass'],
  ['latency_ms', 'latencyMs'],
  ['time_to_first_chunk_ms', 'timeToFirstChunkMs'],
  ['request_body', 'requestBody'],
  ['response_body', 'responseBody'],
];
const JSON_COLUMNS = new Set<keyof LlmCallAuditRow>(['requestBody', 'responseBody']);
const INSERT_PREFIX = `INSERT INTO "llm_call_audit" (${COLUMNS.map(([column]) => `"${column}"`).join(', ')}) VALUES `;

/** Rows written in one INSERT at most. */
const MAX_BATCH = 200;
/** How long a row waits for others before it is written. */
const FLUSH_DELAY_MS = 100;
/**
 * Rows waiting (pending or queued behind a slow INSERT) at most: a Postgres that cannot keep up
 * must not grow the gateway's memory without bound. Beyond it rows are dropped and counted.
 */
const MAX_WAITING = 20_000;

/**
 * Writes audit rows off the request path: rows gather for up to 100 ms (or 200 rows) and go in
 * one INSERT, so a call never waits on Postgres. A failed write is logged (counts, never bodies)
 * and dropped; the call it describes has already been answered. Pending rows are written before
 * the database closes at shutdown.
 */
@Injectable()
export class LlmCallAuditWriter implements BeforeApplicationShutdown {
  private pending: LlmCallAuditRow[] = [];
  private timer?: NodeJS.Timeout;
  private writing: Promise<void> = Promise.resolve();
  /** Rows handed to a write that has not finished yet. */
  private queued = 0;
  private dropped = 0;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(AUDIT_LOGGER) private readonly logger: Logger,
  ) {}

  add(row: LlmCallAuditRow): void {
    if (this.pending.length + this.queued >= MAX_WAITING) {
      this.dropped++;
      return;
    }
    this.pending.push(row);
    if (this.pending.length >= MAX_BATCH) this.flushSoon(0);
    else this.timer ??= this.flushSoon(FLUSH_DELAY_MS);
  }

  /** Writes what is pending now; resolves when every earlier write finished. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const rows = this.pending;
    this.pending = [];
    if (rows.length > 0) {
      this.queued += rows.length;
      this.writing = this.writing.then(async () => {
        await this.write(rows);
        this.queued -= rows.length;
      });
    }
    if (this.dropped > 0) {
      this.logger.warn({ rows: this.dropped }, 'llm_call_audit rows dropped: Postgres is not keeping up');
      this.dropped = 0;
    }
    return this.writing;
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.flush();
  }

  private flushSoon(delayMs: number): NodeJS.Timeout {
    clearTimeout(this.timer);
    const timer = setTimeout(() => void this.flush(), delayMs);
    timer.unref();
    this.timer = timer;
    return timer;
  }

  /**
   * One parameterized multi-row INSERT per batch, written by hand: TypeORM's insert builder cost
   * more CPU per row than the rest of a proxied call (measured in bench/gateway).
   */
  private async write(rows: LlmCallAuditRow[]): Promise<void> {
    for (let start = 0; start < rows.length; start += MAX_BATCH) {
      const batch = rows.slice(start, start + MAX_BATCH);
      const params: unknown[] = [];
      const tuples = batch.map((row) => {
        const placeholders = COLUMNS.map(([, field]) => {
          const value = row[field];
          params.push(JSON_COLUMNS.has(field) && value !== null ? JSON.stringify(value) : value);
          return `$${params.length}`;
        });
        return `(${placeholders.join(', ')})`;
      });
      try {
        await this.dataSource.query(INSERT_PREFIX + tuples.join(', '), params);
      } catch (error) {
        this.logger.warn(
          { rows: batch.length, error: error instanceof Error ? error.message : String(error) },
          'llm_call_audit rows could not be written; dropped',
        );
      }
    }
  }
}
