import {
  AgentStreamEnvelopeSchema,
  runStreamSubject,
  STREAMS,
  type AgentStreamEnvelope,
} from '@flowmesh/contracts';
import type { MeshConnection } from '@flowmesh/messaging';
import { DeliverPolicy, JetStreamApiError, type ConsumerMessages } from '@nats-io/jetstream';

/** How long the end of a run waits for the stream to deliver what its steps said before. */
const CATCH_UP_MS = 10_000;

/**
 * One reader of a run's stream (`runStreamSubject`), from the start or after an offset: what the
 * `runStreams` stream kept, then what comes live, in order, each with its offset (the stream
 * sequence). An ordered consumer of its own, gone when the reader closes.
 */
export class RunStreamReader {
  private delivered: number;
  private waiting: Array<{ upTo: number; resolve: () => void }> = [];

  private constructor(
    private readonly conn: MeshConnection,
    private readonly subject: string,
    private readonly messages: ConsumerMessages,
    after: number,
  ) {
    this.delivered = after;
  }

  static async open(conn: MeshConnection, rootJob: string, after: number): Promise<RunStreamReader> {
    const subject = conn.space.subject(runStreamSubject(rootJob));
    const consumer = await conn.js.consumers.get(
      conn.space.streamName(STREAMS.runStreams.name),
      after > 0
        ? { filter_subjects: subject, deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: after + 1 }
        : { filter_subjects: subject },
    );
    return new RunStreamReader(conn, subject, await consumer.consume(), after);
  }

  /** Hands each event to `deliver` until the reader closes; resolves then. */
  async relay(deliver: (envelope: AgentStreamEnvelope, offset: number) => void): Promise<void> {
    for await (const message of this.messages) {
      let parsed;
      try {
        parsed = AgentStreamEnvelopeSchema.safeParse(message.json());
      } catch {
        parsed = undefined; // not JSON: not ours to relay
      }
      if (parsed?.success) deliver(parsed.data, message.seq);
      this.delivered = message.seq;
      this.settle();
    }
    this.settle(true);
  }

  /** Resolves once everything the stream holds for this run now has been relayed. */
  async caughtUp(): Promise<void> {
    const last = await this.lastOffset();
    if (this.delivered >= last) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, CATCH_UP_MS);
      this.waiting.push({
        upTo: last,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  close(): void {
    this.messages.stop();
  }

  private async lastOffset(): Promise<number> {
    try {
      const last = await this.conn.jsm.streams.getMessage(
        this.conn.space.streamName(STREAMS.runStreams.name),
        {
          last_by_subj: this.subject,
        },
      );
      return last?.seq ?? 0;
    } catch (error) {
      if (error instanceof JetStreamApiError) return 0; // nothing said on this run
      throw error;
    }
  }

  private settle(all = false): void {
    const still: typeof this.waiting = [];
    for (const waiter of this.waiting) {
      if (all || this.delivered >= waiter.upTo) waiter.resolve();
      else still.push(waiter);
    }
    this.waiting = still;
  }
}
