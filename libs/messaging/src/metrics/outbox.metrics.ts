import { FLOWMESH_METRICS, getMeter } from '@flowmesh/telemetry';
import type { ObservableCallback, ObservableGauge } from '@opentelemetry/api';
import type { DataSource } from 'typeorm';

/**
 * `flowmesh.outbox.backlog`: outbox rows committed and not yet published, counted at each scrape
 * (the partial index on unpublished rows keeps it cheap). A backlog that grows means the relay
 * cannot reach JetStream.
 */
export class OutboxMetrics {
  private readonly meter = getMeter('flowmesh.messaging');
  private readonly backlog: ObservableGauge;
  private readonly callback: ObservableCallback;

  constructor(dataSource: DataSource, table: string) {
    const schema = (dataSource.options as { schema?: string }).schema ?? 'public';
    this.backlog = this.meter.createObservableGauge(FLOWMESH_METRICS.outboxBacklog.name, {
      unit: FLOWMESH_METRICS.outboxBacklog.unit,
      description: 'Outbox rows committed and not yet published to JetStream',
    });
    this.callback = async (result) => {
      if (!dataSource.isInitialized) return;
      const rows = (await dataSource
        .query(`SELECT count(*)::int AS n FROM ${table} WHERE "published_at" IS NULL`)
        .catch(() => undefined)) as { n: number }[] | undefined;
      if (rows?.[0]) result.observe(rows[0].n, { schema });
    };
    this.backlog.addCallback(this.callback);
  }

  close(): void {
    this.backlog.removeCallback(this.callback);
  }
}
