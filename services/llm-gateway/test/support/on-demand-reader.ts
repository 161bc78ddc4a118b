import { MetricReader } from '@opentelemetry/sdk-metrics';

/** Collects on demand: a test reads what the gateway recorded, no export interval involved. */
export class OnDemandReader extends MetricReader {
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}
