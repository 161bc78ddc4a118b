import type { TriggerKind } from '@flowmesh/contracts';
import { FLOWMESH_METRICS, getMeter } from '@flowmesh/telemetry';
import { Injectable } from '@nestjs/common';
import type { Counter, Histogram } from '@opentelemetry/api';

/** Bounds (seconds) of a trigger's lateness: on time is a few ms, a mesh that was down is minutes. */
const LATENESS_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/** Why a request to an HTTP route ran nothing (a label value of the rejections counter). */
const ROUTE_REJECTIONS = [
  'not_found',
  'method_not_allowed',
  'unauthorized',
  'too_large',
  'bad_request',
] as const;
export type RouteRejection = (typeof ROUTE_REJECTIONS)[number];

/** The kinds of trigger this mesh serves (the others of `TRIGGER_KINDS` are still to come). */
const BUILT_TRIGGER_KINDS: readonly TriggerKind[] = [
  'schedule',
  'webhook',
  'http',
  'mcp',
  'nats',
  'amqp',
  'mqtt',
];

/**
 * Runs started by triggers, labelled by trigger kind only (never by path: a workspace may hold
 * thousands of schedules, and each label value is a series): `flowmesh_trigger_fires_total`,
 * `flowmesh_trigger_fire_lateness_seconds` and `flowmesh_trigger_failures_total`; and the
 * requests to HTTP routes refused before a run, by reason (`flowmesh_trigger_http_rejections_total`).
 */
@Injectable()
export class TriggerMetrics {
  private readonly meter = getMeter('flowmesh.flow-orchestrator');
  private readonly fires: Counter = this.meter.createCounter(FLOWMESH_METRICS.triggerFires.name, {
    unit: FLOWMESH_METRICS.triggerFires.unit,
    description: 'Runs a trigger started',
  });
  private readonly failures: Counter = this.meter.createCounter(FLOWMESH_METRICS.triggerFailures.name, {
    unit: FLOWMESH_METRICS.triggerFailures.unit,
    description: 'Triggers that could not start their run',
  });
  private readonly lateness: Histogram = this.meter.createHistogram(
    FLOWMESH_METRICS.triggerFireLateness.name,
    {
      unit: FLOWMESH_METRICS.triggerFireLateness.unit,
      description: 'Time from a triggered run’s due time to its start',
      advice: { explicitBucketBoundaries: LATENESS_BUCKETS_S },
    },
  );

  private readonly rejections: Counter = this.meter.createCounter(
    FLOWMESH_METRICS.triggerHttpRejections.name,
    {
      unit: FLOWMESH_METRICS.triggerHttpRejections.unit,
      description: 'Requests to HTTP routes refused before a run',
    },
  );

  constructor() {
    // Each series exists from the start at 0, so a dashboard (and an alert on a rate) reads 0,
    // not "no data", until a trigger of that kind first fires, fails or refuses.
    for (const kind of BUILT_TRIGGER_KINDS) {
      this.fires.add(0, { kind });
      this.failures.add(0, { kind });
    }
    for (const reason of ROUTE_REJECTIONS) this.rejections.add(0, { reason });
  }

  fired(kind: TriggerKind): void {
    this.fires.add(1, { kind });
  }

  failed(kind: TriggerKind): void {
    this.failures.add(1, { kind });
  }

  /** `seconds` late (a run that started early counts as 0). */
  late(kind: TriggerKind, seconds: number): void {
    this.lateness.record(Math.max(0, seconds), { kind });
  }

  rejected(reason: RouteRejection): void {
    this.rejections.add(1, { reason });
  }
}
