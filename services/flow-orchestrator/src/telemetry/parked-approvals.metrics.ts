import { FLOWMESH_METRICS, getMeter } from '@flowmesh/telemetry';
import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { ObservableCallback, ObservableGauge } from '@opentelemetry/api';
import { JobRepository } from '../jobs/job.repository.js';

/** Suspended flows and AI steps by kind (the partial index `job_suspended` serves it). */
export const PARKED_APPROVALS_SQL = `SELECT CASE WHEN kind = 'aiagent' THEN 'agent' ELSE 'flow' END AS kind, count(*)::int AS n
  FROM job WHERE status = 'suspended' AND kind IN ('aiagent', 'flow', 'flowpreview') GROUP BY 1`;

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
    const rows = await this.jobs
      .query<{ kind: 'flow' | 'agent'; n: number }>(PARKED_APPROVALS_SQL, [])
      .catch(() => undefined);
    if (!rows) return;
    for (const kind of ['flow', 'agent'] as const)
      result.observe(rows.find((row) => row.kind === kind)?.n ?? 0, { kind });
  };

  constructor(private readonly jobs: JobRepository) {}

  onModuleInit(): void {
    this.gauge.addCallback(this.callback);
  }

  onModuleDestroy(): void {
    this.gauge.removeCallback(this.callback);
  }
}
