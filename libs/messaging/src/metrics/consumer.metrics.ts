import { FLOWMESH_METRICS, getMeter } from '@flowmesh/telemetry';
import type { Attributes, BatchObservableCallback, ObservableGauge } from '@opentelemetry/api';
import type { MeshConnection } from '../connection/mesh-connection.js';

/** One durable consumer a process reads: its stream and durable as named in the contracts. */
export interface ObservedConsumer {
  readonly stream: string;
  readonly durable: string;
  /** The worker tag of a work consumer. */
  readonly tag?: string;
}

/**
 * `flowmesh.queue.depth` (messages waiting for the consumer or in flight in it) and
 * `flowmesh.consumer.lag` (not yet delivered: JetStream's `num_pending`, what KEDA scales on) of
 * each consumer the process reads, asked of JetStream at each scrape. Every replica reports the
 * same consumer's figures: query them with `max by (...)`, not `sum`.
 */
export class ConsumerMetrics {
  private readonly meter = getMeter('flowmesh.messaging');
  private readonly depth: ObservableGauge;
  private readonly lag: ObservableGauge;
  private readonly callback: BatchObservableCallback;

  constructor(conn: MeshConnection, consumers: readonly ObservedConsumer[]) {
    this.depth = this.meter.createObservableGauge(FLOWMESH_METRICS.queueDepth.name, {
      unit: FLOWMESH_METRICS.queueDepth.unit,
      description: 'Messages waiting for a durable consumer or delivered and not yet acknowledged',
    });
    this.lag = this.meter.createObservableGauge(FLOWMESH_METRICS.consumerLag.name, {
      unit: FLOWMESH_METRICS.consumerLag.unit,
      description: 'Messages not yet delivered to a durable consumer (JetStream num_pending)',
    });
    this.callback = async (result) => {
      await Promise.all(
        consumers.map(async (consumer) => {
          const info = await conn.jsm.consumers
            .info(conn.space.streamName(consumer.stream), conn.space.durableName(consumer.durable))
            .catch(() => undefined);
          if (!info) return;
          const attributes: Attributes = {
            stream: consumer.stream,
            consumer: consumer.durable,
            ...(consumer.tag ? { tag: consumer.tag } : {}),
          };
          result.observe(this.lag, info.num_pending, attributes);
          result.observe(this.depth, info.num_pending + info.num_ack_pending, attributes);
        }),
      );
    };
    if (consumers.length > 0) this.meter.addBatchObservableCallback(this.callback, [this.depth, this.lag]);
  }

  close(): void {
    this.meter.removeBatchObservableCallback(this.callback, [this.depth, this.lag]);
  }
}
