import { context } from '@opentelemetry/api';
import type { LoggerService } from '@nestjs/common';
import { Logger } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import { MeshClient } from '../client/mesh-client.js';
import type { MeshConnection } from '../connection/mesh-connection.js';
import { restoreTraceContext } from '../tracing/message-tracing.js';
import { OutboxMetrics } from '../metrics/outbox.metrics.js';
import { outboxTablePath } from './outbox-table.util.js';

export interface OutboxRelayOptions {
  /** Rows claimed per transaction (default 100). */
  batchSize?: number;
  /** How often to look for rows when nobody calls `wake()` (default 1 s). */
  pollIntervalMs?: number;
  /** Published rows are deleted after this long (default 24 h). */
  retainPublishedMs?: number;
  /**
   * When the writer publishes its rows itself right after its commit (and marks them), a poll
   * leaves rows younger than this to it (default 0: every row); a `wake()` still takes every row.
   * Spares the relay publishing again what is on its way, and its lock on rows the writer marks.
   */
  writerGraceMs?: number;
  logger?: LoggerService;
}

interface OutboxRow {
  id: string;
  subject: string;
  payload: unknown;
  headers: Record<string, string> | null;
  msg_id: string;
}

/**
 * Publishes outbox rows to JetStream. Each batch is one transaction that claims rows with
 * `FOR UPDATE SKIP LOCKED` (so replicas share the work without blocking), publishes them with
 * `Nats-Msg-Id` = the row's `msg_id`, and marks them published. A relay killed mid-batch leaves
 * its rows unmarked; the next relay republishes them and JetStream drops them as duplicates.
 */
export class OutboxRelay {
  private readonly client: MeshClient;
  private readonly table: string;
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private readonly retainPublishedMs: number;
  private readonly writerGraceMs: number;
  private readonly logger: LoggerService;
  private running?: Promise<void>;
  private stopped = true;
  private wakeUp?: () => void;
  /** A wake() that arrived while a batch ran: the batch may have missed that row. */
  private woken = false;
  private lastPrune = 0;
  private metrics?: OutboxMetrics;
  private stopWaking?: () => void;

  constructor(
    private readonly dataSource: DataSource,
    private readonly conn: MeshConnection,
    options: OutboxRelayOptions = {},
  ) {
    this.client = new MeshClient(conn);
    this.table = outboxTablePath(dataSource);
    this.batchSize = options.batchSize ?? 100;
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
    this.retainPublishedMs = options.retainPublishedMs ?? 24 * 60 * 60 * 1000;
    this.writerGraceMs = options.writerGraceMs ?? 0;
    this.logger = options.logger ?? new Logger('OutboxRelay');
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.metrics = new OutboxMetrics(this.dataSource, this.table);
    // What failed to publish while NATS was away goes out as soon as it is back, not at the next poll.
    this.stopWaking = this.conn.outages.onReconnect(() => this.wake());
    this.running = this.loop();
  }

  /** Publish now instead of at the next poll (call it after committing a transaction that wrote). */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Finishes the batch in progress, then stops. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopWaking?.();
    this.metrics?.close();
    this.wake();
    await this.running;
  }

  /**
   * Claims, publishes and marks one batch; returns how many rows were published. `all: false`
   * leaves rows younger than `writerGraceMs` to their writer.
   */
  publishBatch(all = true): Promise<number> {
    const graceMs = all ? 0 : this.writerGraceMs;
    return this.dataSource.transaction(async (manager) => {
      const rows: OutboxRow[] = await manager.query(
        `SELECT "id", "subject", "payload", "headers", "msg_id" FROM ${this.table}
         WHERE "published_at" IS NULL AND "created_at" <= now() - $2::int * interval '1 millisecond'
         ORDER BY "seq" LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [this.batchSize, graceMs],
      );
      if (rows.length === 0) return 0;
      const outcomes = await Promise.allSettled(rows.map((row) => this.publishRow(row)));
      const published = rows.filter((_, i) => outcomes[i]?.status === 'fulfilled').map((row) => row.id);
      await this.markPublished(manager, published);
      const failed = outcomes.find((outcome) => outcome.status === 'rejected');
      if (failed) {
        const reason = failed.reason instanceof Error ? failed.reason.message : String(failed.reason);
        this.logger.warn(
          `outbox: ${rows.length - published.length} of ${rows.length} rows not published (${reason}); retrying later`,
        );
      }
      return published.length;
    });
  }

  private publishRow(row: OutboxRow): Promise<unknown> {
    const subject = this.conn.space.subject(row.subject);
    // Continue the trace of the transaction that wrote the row.
    return context.with(restoreTraceContext(row.headers ?? {}), () =>
      this.client.publish(subject, 'relay', row.payload, { msgId: row.msg_id }),
    );
  }

  private async markPublished(manager: EntityManager, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await manager.query(`UPDATE ${this.table} SET "published_at" = now() WHERE "id" = ANY($1::uuid[])`, [
      ids,
    ]);
  }

  private async loop(): Promise<void> {
    // The first batch takes every row: what a process that stopped left behind.
    let all = true;
    while (!this.stopped) {
      let published = 0;
      all ||= this.woken;
      this.woken = false;
      // NATS away: nothing would publish, and each batch would say so; the reconnect wakes the relay.
      if (!this.conn.outages.connected) {
        await this.sleep();
        continue;
      }
      try {
        published = await this.publishBatch(all);
        all = published === this.batchSize && all;
        if (published === 0) await this.pruneIfDue();
      } catch (error) {
        this.logger.error(
          `outbox relay batch failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      // A full batch means more may be waiting: go again without sleeping.
      if (published < this.batchSize) await this.sleep();
    }
  }

  private async pruneIfDue(): Promise<void> {
    const now = Date.now();
    if (now - this.lastPrune < Math.min(this.retainPublishedMs, 5 * 60 * 1000)) return;
    this.lastPrune = now;
    await this.dataSource.query(
      `DELETE FROM ${this.table} WHERE "published_at" < now() - ($1::bigint * interval '1 millisecond')`,
      [this.retainPublishedMs],
    );
  }

  private sleep(): Promise<void> {
    if (this.stopped || this.woken) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, this.pollIntervalMs);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = () => {
        this.wakeUp = undefined;
        done();
      };
    });
  }
}
