import { InjectMeshConnection, MeshClient, OutboxRelay, type MeshConnection } from '@flowmesh/messaging';
import {
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { DataSource } from 'typeorm';
import { OutboxStore } from '../store/outbox.store.js';
import type { SqlStatement } from '../store/sql-batch.js';

const MARK_AFTER_MS = 20;

/**
 * Publishes what the engine wrote to the outbox (work for workers, job events). Every process
 * of the orchestrator runs one; replicas share the table. `wake()` after a commit publishes at
 * once instead of at the next poll.
 */
@Injectable()
export class EngineOutbox implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly log = new Logger(EngineOutbox.name);
  private readonly relay: OutboxRelay;
  private readonly client: MeshClient;
  /** Published ids not yet marked: many commits' worth go in one statement. */
  private readonly published = new Set<string>();
  private marking: Promise<void> | undefined;
  private stopping = false;

  constructor(
    dataSource: DataSource,
    private readonly store: OutboxStore,
    @InjectMeshConnection() private readonly conn: MeshConnection,
  ) {
    this.client = new MeshClient(conn);
    this.relay = new OutboxRelay(dataSource, conn, {
      pollIntervalMs: 250,
      batchSize: 200,
      // `afterCommit` publishes and marks its rows itself: a poll leaves them to it for a while.
      writerGraceMs: 5_000,
      logger: new Logger('EngineOutbox'),
    });
  }

  onApplicationBootstrap(): void {
    this.relay.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await this.marking;
    await this.relay.stop();
  }

  wake(): void {
    this.relay.wake();
  }

  /**
   * After the commit of `statements`: their messages are published now (with their outbox id,
   * so the relay's copy, should it publish too, is dropped by JetStream) and marked published;
   * the relay is woken only for rows it alone can publish. A failed publish is left to the relay.
   */
  afterCommit(statements: readonly SqlStatement[]): void {
    const messages = statements.flatMap((statement) => (statement.message ? [statement.message] : []));
    if (statements.some((statement) => statement.relay)) this.relay.wake();
    if (messages.length === 0) return;
    void Promise.allSettled(
      messages.map((message) =>
        this.client.publish(this.conn.space.subject(message.subject), 'publish', message.payload, {
          msgId: message.msgId,
        }),
      ),
    ).then((outcomes) => {
      messages.forEach((message, i) => {
        if (outcomes[i]?.status === 'fulfilled') this.published.add(message.msgId);
      });
      this.markSoon();
    });
  }

  /**
   * Marks what was published, one statement at a time, each taking every id published meanwhile
   * (it waits `MARK_AFTER_MS` first, so that under load one statement marks many flows'
   * messages; the relay leaves them alone far longer). Losing a mark (a crash) only means the
   * relay publishes that message again, with the same id, which JetStream drops as a duplicate.
   */
  private markSoon(): void {
    if (this.marking || this.published.size === 0) return;
    this.marking = (async () => {
      while (this.published.size > 0) {
        if (!this.stopping) await new Promise((resolve) => setTimeout(resolve, MARK_AFTER_MS));
        const ids = [...this.published];
        this.published.clear();
        await this.store
          .markPublished(ids)
          .catch((error: unknown) => this.log.warn(`outbox messages not marked published: ${String(error)}`));
      }
      this.marking = undefined;
    })();
  }
}
