import { FLOWMESH_METRICS, getMeter, STEP_DURATION_BUCKETS_S } from '@flowmesh/telemetry';
import { Injectable } from '@nestjs/common';
import type { Counter, Histogram } from '@opentelemetry/api';

export type StepEnd = 'success' | 'failure' | 'skipped';

/**
 * The engine's metrics, in one place: root flows started and finished by status, steps started
 * and finished by type and status, and each step's duration. Recorded where the engine commits
 * those transitions (FlowStarter, FlowFinisher, FlowDriver, FlowCompletion).
 */
@Injectable()
export class FlowMetrics {
  private readonly meter = getMeter('flowmesh.flow-orchestrator');
  private readonly flowsStarted: Counter = this.counter(
    FLOWMESH_METRICS.flowsStarted,
    'Root flows that began running',
  );
  private readonly flowsFinished: Counter = this.counter(
    FLOWMESH_METRICS.flowsFinished,
    'Root flows that ended, by status',
  );
  private readonly stepsStarted: Counter = this.counter(
    FLOWMESH_METRICS.stepsStarted,
    'Flow steps that began',
  );
  private readonly stepsFinished: Counter = this.counter(
    FLOWMESH_METRICS.stepsFinished,
    'Flow steps that ended, by status',
  );
  private readonly stepDuration: Histogram = this.meter.createHistogram(FLOWMESH_METRICS.stepDuration.name, {
    unit: FLOWMESH_METRICS.stepDuration.unit,
    description: 'Time from a flow step’s start to its end',
    advice: { explicitBucketBoundaries: STEP_DURATION_BUCKETS_S },
  });

  flowStarted(kind: string): void {
    this.flowsStarted.add(1, { kind });
  }

  flowFinished(kind: string, status: string): void {
    this.flowsFinished.add(1, { kind, status });
  }

  stepStarted(stepType: string): void {
    this.stepsStarted.add(1, { step_type: stepType });
  }

  /** `seconds` when the step's start is known (it is kept in the run's state across workers). */
  stepFinished(stepType: string, status: StepEnd, seconds?: number): void {
    const attributes = { step_type: stepType, status };
    this.stepsFinished.add(1, attributes);
    if (seconds !== undefined && seconds >= 0) this.stepDuration.record(seconds, attributes);
  }

  private counter(metric: { name: string; unit: string }, description: string): Counter {
    return this.meter.createCounter(metric.name, { unit: metric.unit, description });
  }
}
