import { FLOWMESH_METRICS, getMeter } from '@flowmesh/telemetry';
import { Injectable } from '@nestjs/common';
import type { Counter } from '@opentelemetry/api';

/** Why a request to an HTTP route ran nothing (a label value of the rejections counter). */
export type RouteRejection =
  'not_found' | 'method_not_allowed' | 'unauthorized' | 'too_large' | 'bad_request';

/**
 * The routes' metrics: runs they started and runs they could not start, in the triggers' shared
 * series (`flowmesh_trigger_fires_total` and `flowmesh_trigger_failures_total`, `kind="http"`;
 * the same instruments the schedules record, created with the same name and description), and
 * the requests refused before a run, by reason (`flowmesh_trigger_http_rejections_total`).
 */
@Injectable()
export class HttpRouteMetrics {
  private readonly meter = getMeter('flowmesh.flow-orchestrator');
  private readonly fires: Counter = this.meter.createCounter(FLOWMESH_METRICS.triggerFires.name, {
    unit: FLOWMESH_METRICS.triggerFires.unit,
    description: 'Runs a trigger started',
  });
  private readonly failures: Counter = this.meter.createCounter(FLOWMESH_METRICS.triggerFailures.name, {
    unit: FLOWMESH_METRICS.triggerFailures.unit,
    description: 'Triggers that could not start their run',
  });
  private readonly rejections: Counter = this.meter.createCounter(
    FLOWMESH_METRICS.triggerHttpRejections.name,
    {
      unit: FLOWMESH_METRICS.triggerHttpRejections.unit,
      description: 'Requests to HTTP routes refused before a run',
    },
  );

  fired(): void {
    this.fires.add(1, { kind: 'http' });
  }

  failed(): void {
    this.failures.add(1, { kind: 'http' });
  }

  rejected(reason: RouteRejection): void {
    this.rejections.add(1, { reason });
  }
}
