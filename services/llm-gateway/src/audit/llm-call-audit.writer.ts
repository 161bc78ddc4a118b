import type { Logger } from '@flowmesh/telemetry';
import { Inject, Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AUDIT_LOGGER } from './audit.config.js';
import type { LlmCallAuditEntity } from './llm-call-audit.entity.js';

export type LlmCallAuditRow = Omit<LlmCallAuditEntity, 'id' | 'createdAt'>;

/** Each column with the row field it is read from and its type. */
const COLUMNS: ReadonlyArray<readonly [string, keyof LlmCallAuditRow, string]> = [
  ['workspace', 'workspace', 'text'],
  ['identity', 'identity', 'text'],
  ['identity_kind', 'identityKind', 'text'],
  ['job_id', 'jobId', 'text'],
  ['source', 'source', 'text'],
  ['operation', 'operation', 'text'],
  ['resource', 'resource', 'text'],
  ['provider', 'provider', 'text'],
  ['model', 'model', 'text'],
  ['response_model', 'responseModel', 'text'],
  ['stream', 'stream', 'boolean'],
  ['input_tokens', 'inputTokens', 'integer'],
  ['output_tokens', 'outputTokens', 'integer'],
  ['cache_read_tokens', 'cacheReadTokens', 'integer'],
  ['cache_write_tokens', 'cacheWriteTokens', 'integer'],
  ['reasoning_tokens', 'reasoningTokens', 'integer'],
  ['status', 'status', 'text'],
  ['http_status', 'httpStatus', 'integer'],
  ['error_class', 'errorClass', 'text'],
  ['latency_ms', 'latencyMs', 'integer'],
  ['time_to_first_chunk_ms', 'timeToFirstChunkMs', 'integer'],
  ['request_body', 'requestBody', 'jsonb'],
  ['response_body', 'responseBody', 'jsonb'],
];
/**
 * A whole batch is one parameter, the rows as a JSON array read back by `jsonb_to_recordset`:
 * one `JSON.stringify` instead of 23 bound values a row (each converted and framed by pg), which
 * cost the gateway more CPU per call than the rest of the audit (bench/gateway).
 */
const INSERT = `INSERT INTO "llm_call_audit" (${COLUMNS.map(([column]) => `"${column}"`).join(', ')}) SELECT ${COLUMNS.map(([, field]) => `r."${field}"`).join(', ')} FROM jsonb_to_recordset($1::jsonb) AS r(${COLUMNS.map(([, field, type]) => `"${field}" ${type}`).join(', ')})`;

/** Rows written in one INSERT at most. */
const MAX_BATCH = 200;
/** How long a row waits for others before it is written. */
const FLUSH_DELAY_MS = 100;
/**
 * Rows waiting (pending, queued behind a slow INSERT, or kept for a retry) at most: a Postgres
 * that stays down must not grow the gateway's memory without bound. Beyond it rows are dropped,
 * counted and logged as errors.
 */
const MAX_WAITING = 50_000;
/** First wait before a failed INSERT is tried again; it doubles up to `MAX_RETRY_DELAY_MS`. */
const RETRY_DELAY_MS = 500;
const MAX_RETRY_DELAY_MS = 30_000;
/** Tries of what is still pending at shutdown before the rows go to the log instead. */
const SHUTDOWN_TRIES = 3;

/**
 * Writes audit rows off the request path: rows gather for up to 100 ms (or 200 rows) and go in
 * one INSERT, so a call never waits on Postgres. A failed INSERT keeps its rows and is tried
 * again (backoff from 0.5 s to 30 s); the call it describes has already been answered. At
 * shutdown (after the HTTP server has drained its requests) what is pending is written, tried a
 * few times, and what still cannot be written goes to the log as error lines (bodies left out),
 * so no row disappears silently.
 */
@Injectable()
export class LlmCallAuditWriter implements BeforeApplicationShutdown {
  private pending: LlmCallAuditRow[] = [];
  private timer?: NodeJS.Timeout;
  private writing: Promise<void> = Promise.resolve();
  /** Rows handed to a write that has not finished yet. */
  private queued = 0;
  private dropped = 0;
  /** The wait before the next try after a failed INSERT; 0 while writes succeed. */
  private retryDelayMs = 0;
  private shuttingDown = false;

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
    if (this.retryDelayMs > 0) return;
    if (this.pending.length >= MAX_BATCH) this.flushSoon(0);
    else this.timer ??= this.flushSoon(FLUSH_DELAY_MS);
  }

  /** Writes what is pending now; resolves when every earlier write finished (failed rows are pending again). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const rows = this.pending;
    this.pending = [];
    if (rows.length > 0) {
      this.queued += rows.length;
      this.writing = this.writing.then(async () => {
        const failed = await this.write(rows);
        this.queued -= rows.length;
        if (failed.length > 0) {
          this.pending = failed.concat(this.pending);
          this.retryDelayMs = Math.min(MAX_RETRY_DELAY_MS, Math.max(RETRY_DELAY_MS, this.retryDelayMs * 2));
          if (!this.shuttingDown) this.flushSoon(this.retryDelayMs);
        } else {
          this.retryDelayMs = 0;
        }
      });
    }
    if (this.dropped > 0) {
      this.logger.error(
        { rows: this.dropped },
        'llm_call_audit rows dropped: Postgres has not taken rows for too long',
      );
      this.dropped = 0;
    }
    return this.writing;
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.shuttingDown = true;
    for (let attempt = 0; attempt < SHUTDOWN_TRIES; attempt++) {
      await this.flush();
      if (this.pending.length === 0) return;
      await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS * (attempt + 1)));
    }
    for (const row of this.pending) {
      this.logger.error(
        { row: { ...row, requestBody: undefined, responseBody: undefined } },
        'llm_call_audit row not written before shutdown',
      );
    }
    this.pending = [];
  }

  private flushSoon(delayMs: number): NodeJS.Timeout {
    clearTimeout(this.timer);
    const timer = setTimeout(() => void this.flush(), delayMs);
    timer.unref();
    this.timer = timer;
    return timer;
  }

  /** One INSERT per batch; resolves to the rows of the batches that failed. */
  private async write(rows: LlmCallAuditRow[]): Promise<LlmCallAuditRow[]> {
    const failed: LlmCallAuditRow[] = [];
    for (let start = 0; start < rows.length; start += MAX_BATCH) {
      const batch = rows.slice(start, start + MAX_BATCH);
      try {
        await this.dataSource.query(INSERT, [JSON.stringify(batch)]);
      } catch (error) {
        failed.push(...batch);
        this.logger.warn(
          { rows: batch.length, error: error instanceof Error ? error.message : String(error) },
          'llm_call_audit rows could not be written; kept to try again',
        );
      }
    }
    return failed;
  }
}
