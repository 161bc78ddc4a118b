import { FLOWMESH_METRICS, getMeter } from '@flowmesh/telemetry';
import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { ObservableCallback, ObservableGauge } from '@opentelemetry/api';
import { JobListingStore } from '../store/job-listing.store.js';

/**
 * `flowmesh.approvals.parked`: flows waiting at a `suspend` gate (`kind=flow`) and AI steps
 * parked on a tool approval or a question (`kind=agent`), counted at each scrape. Every replica
 * counts the same rows: query it with `max`.
 */
@Injectable()
export class ParkedApprovalsMetrics implements OnModuleInit, OnModuleDestroy {
  private readonly gauge: ObservableGauge = getMeter('flowmesh.flow-orchestrator').createObservableGauge(
    FLOWMESH_METRICS.parkedApprovals.name,
    { unit: FLOWMESH_METRICS.parkedApprovals.unit, description: 'Approvals and questions a run waits on' },
  );
  private readonly callback: ObservableCallback = async (result) => {
    const rows = await this.listing.parkedApprovals().catch(() => undefined);
    if (!rows) return;
    for (const kind of ['flow', 'agent'] as const)
      result.observe(rows.find((row) => row.kind === kind)?.n ?? 0, { kind });
  };

  constructor(private readonly listing: JobListingStore) {}

  onModuleInit(): void {
    this.gauge.addCallback(this.callback);
  }

  onModuleDestroy(): void {
    this.gauge.removeCallback(this.callback);
  }
}
